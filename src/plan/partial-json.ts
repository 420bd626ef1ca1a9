/**
 * Reads what can be read of a JSON text that was cut off or overwritten mid-write: a task list
 * the agent was rewriting in place when ralph was killed (`json.dump(open(f, 'w'))` leaves the
 * first part of the new text; a write without truncation leaves the new text with the old one's
 * tail after it). Every value that is whole is kept; a container that was cut holds the members
 * that were whole before the cut; a scalar that was cut is dropped; anything after the first value
 * is ignored. Only used to rescue the agent's passes and notes (salvage.ts), never to write a file.
 */
export function parsePartialJson(text: string): unknown {
  const reader = new Reader(text);
  try {
    return reader.value();
  } catch (error) {
    if (error instanceof Cut) return undefined;
    throw error;
  }
}

/** The text ended, or stopped making sense, inside a scalar. */
class Cut extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: readonly [string, unknown][] = [
  ['true', true],
  ['false', false],
  ['null', null],
];

class Reader {
  private at = 0;
  /** Set once a cut was met: every container still open returns what it has. */
  private ended = false;

  constructor(private readonly text: string) {}

  value(): unknown {
    this.skipSpace();
    const char = this.text[this.at];
    if (char === '{') return this.object();
    if (char === '[') return this.array();
    if (char === '"') return this.string();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    // A number that runs to the end of the text may be the first digits of a longer one.
    if (number === null || NUMBER.lastIndex >= this.text.length) throw this.cut();
    this.at = NUMBER.lastIndex;
    return Number(number[0]);
  }

  private object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    this.at += 1;
    for (;;) {
      this.skipSpace();
      const char = this.text[this.at];
      if (char === '}') {
        this.at += 1;
        return result;
      }
      if (char === ',') {
        this.at += 1;
        continue;
      }
      if (char !== '"') return this.stop(result);
      let key: string;
      try {
        key = this.string();
        this.skipSpace();
        if (this.text[this.at] !== ':') return this.stop(result);
        this.at += 1;
        const value = this.value();
        result[key] = value;
      } catch (error) {
        if (error instanceof Cut) return result;
        throw error;
      }
      if (this.ended) return result;
    }
  }

  private array(): unknown[] {
    const result: unknown[] = [];
    this.at += 1;
    for (;;) {
      this.skipSpace();
      const char = this.text[this.at];
      if (char === ']') {
        this.at += 1;
        return result;
      }
      if (char === ',') {
        this.at += 1;
        continue;
      }
      if (char === undefined) return this.stop(result);
      try {
        result.push(this.value());
      } catch (error) {
        if (error instanceof Cut) return result;
        throw error;
      }
      if (this.ended) return result;
    }
  }

  private string(): string {
    const start = this.at;
    let index = start + 1;
    for (;;) {
      const quote = this.text.indexOf('"', index);
      if (quote === -1) throw this.cut();
      let backslashes = 0;
      for (let before = quote - 1; this.text[before] === '\\'; before--) backslashes += 1;
      if (backslashes % 2 === 0) {
        this.at = quote + 1;
        try {
          return JSON.parse(this.text.slice(start, quote + 1)) as string;
        } catch {
          // A raw control character or a bad escape: the text is not what JSON would write.
          throw this.cut();
        }
      }
      index = quote + 1;
    }
  }

  private stop<T>(result: T): T {
    this.ended = true;
    return result;
  }

  private cut(): Cut {
    this.ended = true;
    return new Cut();
  }

  private skipSpace(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at += 1;
  }
}
