import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a decoded text stream into lines, holding only the current unfinished line: agent output
 * can be hundreds of megabytes, a single line rarely more than a few. Multi-byte characters split
 * across chunks are the decoder's job (pumpLines' StringDecoder), so this only ever sees whole
 * characters.
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

export interface LineReader {
  /** The raw bytes as they arrive (before decoding), e.g. for a byte-exact log. */
  onChunk?: ((chunk: Buffer) => void | Promise<void>) | undefined;
  /** Every line, without its terminator, in order. */
  onLine: (line: string) => void | Promise<void>;
  /** Called for every chunk, before anything else. */
  onActivity?: () => void;
}

/**
 * Reads a byte stream line by line. When a callback returns a promise, reading pauses until it
 * settles, so a slow consumer (a log on a slow disk) holds the producer back instead of filling
 * memory. UTF-8 is decoded here (StringDecoder) so a character split across chunks stays whole.
 */
export async function pumpLines(stream: Readable, reader: LineReader): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const splitter = createLineSplitter();
  const emit = async (lines: string[]) => {
    for (const line of lines) {
      const wait = reader.onLine(line);
      if (wait !== undefined) await wait;
    }
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    reader.onActivity?.();
    const wait = reader.onChunk?.(chunk);
    if (wait !== undefined) await wait;
    await emit(splitter.push(decoder.write(chunk)));
  }
  await emit(splitter.push(decoder.end()));
  const last = splitter.end();
  if (last !== undefined) await reader.onLine(last);
}
