import { createInterface } from 'node:readline';

/**
 * Reads answers one line at a time from a stream: a terminal or piped answers alike. The async
 * iterator buffers lines that arrive before they are asked for, which `rl.question` would drop
 * when answers are piped in all at once.
 */
export interface LineReader {
  next(): Promise<string | undefined>;
  close(): void;
}

export function createLineReader(input: NodeJS.ReadableStream): LineReader {
  const rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
  const lines = rl[Symbol.asyncIterator]();
  return {
    async next() {
      const result = await lines.next();
      return result.done === true ? undefined : result.value;
    },
    close: () => {
      rl.close();
    },
  };
}
