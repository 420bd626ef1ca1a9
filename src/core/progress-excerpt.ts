import { openForRead } from '../util/no-follow.js';

/**
 * What of progress.txt can go into a prompt: its Codebase Patterns section and its newest
 * entries. The file only grows (the agent appends each iteration, ralph its session history), so
 * at iteration 200 it may be megabytes; reading it whole for every prompt would be wasted work.
 * Only its head (where the patterns section lives, as the template asks) and as much of its
 * tail as the prompt could ever hold are read.
 */
export interface ProgressExcerpt {
  /** The Codebase Patterns section, its heading included; '' when the file has none. */
  patterns: string;
  /** The text after the patterns that was read: the whole rest, or the file's tail. */
  recent: string;
  /** Whether `recent` starts where the file's content after the patterns starts (nothing skipped). */
  complete: boolean;
  /** The file's size in bytes. */
  totalBytes: number;
}

/** How much of the start is searched for the Codebase Patterns section. */
export const HEAD_BYTES = 64 * 1024;

const PATTERNS_HEADING = /^(#{1,6})[ \t]*codebase patterns\b.*$/im;

/**
 * Reads the head and at most `tailBytes` of the tail of `file`. Undefined when there is no such
 * file, or it is not a plain file (a link the agent put there must not pull another file's
 * content into the prompt).
 */
export async function readProgressExcerpt(
  file: string,
  tailBytes: number,
): Promise<ProgressExcerpt | undefined> {
  let handle;
  try {
    handle = await openForRead(file);
  } catch {
    // Missing, a link, unreadable: the prompt still names the file; the run goes on.
    return undefined;
  }
  try {
    const size = (await handle.stat()).size;
    if (size <= HEAD_BYTES + tailBytes) {
      return { ...splitProgress(await handle.readFile('utf8'), true), totalBytes: size };
    }
    const head = await readAt(handle, 0, HEAD_BYTES);
    const tail = await readAt(handle, size - tailBytes, tailBytes);
    // The head's last line and the tail's first one may be cut in the middle (of a character
    // too): both are dropped.
    const headText = head.slice(0, head.lastIndexOf('\n') + 1);
    const tailText = tail.slice(tail.indexOf('\n') + 1);
    const fromHead = findPatterns(headText);
    const fromTail = fromHead === undefined ? findPatterns(tailText) : undefined;
    const recent =
      fromTail === undefined
        ? tailText
        : tailText.slice(0, fromTail.start) + tailText.slice(fromTail.end);
    return {
      patterns: (fromHead ?? fromTail)?.text ?? '',
      recent,
      complete: false,
      totalBytes: size,
    };
  } finally {
    await handle.close();
  }
}

/** A whole progress.txt: its patterns section apart, the rest after it (its header skipped). */
export function splitProgress(
  text: string,
  complete: boolean,
): Omit<ProgressExcerpt, 'totalBytes'> {
  const found = findPatterns(text);
  if (found === undefined) return { patterns: '', recent: text, complete };
  return {
    patterns: found.text,
    recent: text.slice(0, found.start) + text.slice(found.end),
    complete,
  };
}

interface Found {
  text: string;
  start: number;
  end: number;
}

/** The section from its heading to the next heading of its level or above, or a `---` line. */
function findPatterns(text: string): Found | undefined {
  const heading = PATTERNS_HEADING.exec(text);
  if (heading === null) return undefined;
  const level = heading[1]?.length ?? 1;
  const start = heading.index;
  const bodyStart = start + heading[0].length;
  const next = new RegExp(`^(#{1,${level}}[ \\t]|-{3,}[ \\t]*$)`, 'm').exec(text.slice(bodyStart));
  const end = next === null ? text.length : bodyStart + next.index;
  return { text: text.slice(start, end).trimEnd(), start, end };
}

async function readAt(
  handle: Awaited<ReturnType<typeof openForRead>>,
  position: number,
  length: number,
): Promise<string> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead).toString('utf8');
}
