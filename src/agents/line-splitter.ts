/**
 * Splits a decoded text stream into lines, holding only the current unfinished line: agent output
 * can be hundreds of megabytes, a single line rarely more than a few. Multi-byte characters split
 * across chunks are the decoder's job (`setEncoding('utf8')` uses a StringDecoder), so this only
 * ever sees whole characters.
 */
export interface LineSplitter {
  /** The complete lines in `chunk` (joined with what was pending), without their terminators. */
  push(chunk: string): string[];
  /** The last line when the stream ended without a newline; undefined when nothing is pending. */
  end(): string | undefined;
}

export function createLineSplitter(): LineSplitter {
  // Pieces of an unfinished line, joined once its newline arrives: a long line spread over many
  // chunks costs one copy instead of one per chunk.
  let pending: string[] = [];
  const finish = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  return {
    push(chunk) {
      const lines: string[] = [];
      let start = 0;
      let newline = chunk.indexOf('\n');
      while (newline !== -1) {
        let line = chunk.slice(start, newline);
        if (pending.length > 0) {
          line = pending.join('') + line;
          pending = [];
        }
        lines.push(finish(line));
        start = newline + 1;
        newline = chunk.indexOf('\n', start);
      }
      if (start < chunk.length) pending.push(start === 0 ? chunk : chunk.slice(start));
      return lines;
    },
    end() {
      if (pending.length === 0) return undefined;
      const line = pending.join('');
      pending = [];
      return finish(line);
    },
  };
}
