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

/** What the default cap of one agent output line is (config `maxLineBytes`): 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Cuts every line of a byte stream at `maxLineBytes`: the rest of an overlong line is dropped as
 * it arrives and a marker saying how much was dropped ends the kept part. A 200 MB line from the
 * agent (a file printed whole, a runaway tool result) would otherwise be held whole — as bytes,
 * then as a string, then parsed — and take ralph past a gigabyte; cut here, before the log and
 * the parser see it, memory stays flat whatever the agent prints. The cut falls on a UTF-8
 * character boundary, so the kept part decodes cleanly.
 */
export interface LineCapper {
  /** The chunk with overlong lines cut (the same Buffer when nothing needed cutting). */
  push(chunk: Buffer): Buffer;
  /** The marker of a cut last line that had no newline; undefined when there is none. */
  end(): Buffer | undefined;
}

export function createLineCapper(maxLineBytes: number): LineCapper {
  let lineBytes = 0;
  // Bytes of the current line dropped so far; > 0 means the line is being cut.
  let dropped = 0;
  const marker = (): Buffer =>
    Buffer.from(
      ` …[ralph: line cut at ${maxLineBytes} bytes (maxLineBytes); ${dropped} more bytes dropped]`,
    );
  return {
    push(chunk) {
      // The usual case, every line within the cap: the chunk as it is, no copy.
      const tail = dropped === 0 ? tailIfAllFit(chunk, lineBytes, maxLineBytes) : undefined;
      if (tail !== undefined) {
        lineBytes = tail;
        return chunk;
      }
      const parts: Buffer[] = [];
      for (let start = 0; start < chunk.length;) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline;
        if (dropped === 0 && end - start <= maxLineBytes - lineBytes) {
          parts.push(chunk.subarray(start, newline === -1 ? end : end + 1));
          lineBytes = newline === -1 ? lineBytes + end - start : 0;
        } else {
          if (dropped === 0) {
            const keep = characterStart(chunk, start, start + (maxLineBytes - lineBytes));
            parts.push(chunk.subarray(start, keep));
            dropped = end - keep;
          } else dropped += end - start;
          if (newline !== -1) {
            parts.push(marker(), Buffer.from('\n'));
            dropped = 0;
            lineBytes = 0;
          }
        }
        start = newline === -1 ? chunk.length : newline + 1;
      }
      return Buffer.concat(parts);
    },
    end() {
      if (dropped === 0) return undefined;
      const last = marker();
      dropped = 0;
      return last;
    },
  };
}

/** The unfinished last line's length when every line of `chunk` fits the cap; else undefined. */
function tailIfAllFit(chunk: Buffer, pending: number, max: number): number | undefined {
  let length = pending;
  let start = 0;
  for (let newline = chunk.indexOf(NEWLINE); newline !== -1;) {
    if (length + newline - start > max) return undefined;
    length = 0;
    start = newline + 1;
    newline = chunk.indexOf(NEWLINE, start);
  }
  const tail = length + chunk.length - start;
  return tail > max ? undefined : tail;
}

/** `index`, moved back to the first byte of the UTF-8 character it falls inside. */
function characterStart(bytes: Buffer, floor: number, index: number): number {
  let at = index;
  while (at > floor && ((bytes[at] ?? 0) & 0xc0) === 0x80) at -= 1;
  return at;
}

export interface LineReader {
  /** The raw bytes as they arrive (before decoding), e.g. for a byte-exact log. */
  onChunk?: ((chunk: Buffer) => void | Promise<void>) | undefined;
  /** Every line, without its terminator, in order. */
  onLine: (line: string) => void | Promise<void>;
  /** Called for every chunk, before anything else. */
  onActivity?: () => void;
  /** Lines longer than this are cut (createLineCapper) before onChunk and onLine see them. */
  maxLineBytes?: number | undefined;
}

/**
 * Reads a byte stream line by line. When a callback returns a promise, reading pauses until it
 * settles, so a slow consumer (a log on a slow disk) holds the producer back instead of filling
 * memory. UTF-8 is decoded here (StringDecoder) so a character split across chunks stays whole.
 */
export async function pumpLines(stream: Readable, reader: LineReader): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const splitter = createLineSplitter();
  const capper =
    reader.maxLineBytes === undefined ? undefined : createLineCapper(reader.maxLineBytes);
  const emit = async (lines: string[]) => {
    for (const line of lines) {
      const wait = reader.onLine(line);
      if (wait !== undefined) await wait;
    }
  };
  const take = async (chunk: Buffer): Promise<void> => {
    const wait = reader.onChunk?.(chunk);
    if (wait !== undefined) await wait;
    await emit(splitter.push(decoder.write(chunk)));
  };
  for await (const raw of stream as AsyncIterable<Buffer>) {
    reader.onActivity?.();
    await take(capper === undefined ? raw : capper.push(raw));
  }
  const marker = capper?.end();
  if (marker !== undefined) await take(marker);
  await emit(splitter.push(decoder.end()));
  const last = splitter.end();
  if (last !== undefined) await reader.onLine(last);
}
