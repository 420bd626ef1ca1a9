import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from './atomic-write.js';
import { loopStateDir } from './user-state.js';

/**
 * evidence.jsonl lives in the loop directory, where the agent can write: a line it appends that
 * says "pass" must not count. ralph seals every line it writes with an HMAC chain: each line's
 * `seal` is HMAC-SHA256(key, previous seal + line without its seal), under a key kept in ralph's
 * user state dir (0600, never in the agent's environment). A line whose seal does not check is
 * "not written by ralph": shown as such and never counted. The chain makes a genuine line copied
 * elsewhere (a pass replayed after a rejection) fail too, and the head kept below notices lines
 * removed from the end. Its limit: without the OS sandbox the agent runs as the same user and can
 * read the key.
 */

const KEY_FILE = 'evidence.key';

/** The key, created (atomically, 0600) when `create` and there is none yet. */
export async function evidenceKey(stateDir: string, create: boolean): Promise<Buffer | undefined> {
  const file = join(stateDir, KEY_FILE);
  const existing = await readKey(file);
  if (existing !== undefined || !create) return existing;
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  // Written whole under a temp name, then linked into place: a reader never sees half a key, and
  // of two runs creating it at once, the second link fails and both use the first one's key.
  const temp = join(stateDir, `.${KEY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${randomBytes(32).toString('hex')}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await link(temp, file).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  await unlink(temp);
  return readKey(file);
}

async function readKey(file: string): Promise<Buffer | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const hex = text?.trim() ?? '';
  return /^[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex, 'hex') : undefined;
}

/** `body` is the line's JSON without `seal`. */
export function sealOf(key: Buffer, previous: string, body: string): string {
  return createHmac('sha256', key).update(`${previous}\n${body}`).digest('hex');
}

/** The line's JSON with its seal as the last field. */
export function sealLine(
  key: Buffer,
  previous: string,
  entry: object,
): { line: string; seal: string } {
  const body = JSON.stringify(entry);
  const seal = sealOf(key, previous, body);
  return { line: `${JSON.stringify({ ...entry, seal })}\n`, seal };
}

/**
 * Which lines ralph wrote: each parsed line, whether its seal checks, and the chain's last good
 * seal (where ralph's next line goes on from).
 */
export function checkSeals(
  key: Buffer | undefined,
  lines: readonly string[],
): { results: { value: unknown; ours: boolean }[]; last: string } {
  let previous = '';
  const results: { value: unknown; ours: boolean }[] = [];
  for (const line of lines) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      results.push({ value: undefined, ours: false });
      continue;
    }
    const record =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    const { seal, ...rest } = record;
    const expected = key === undefined ? undefined : sealOf(key, previous, JSON.stringify(rest));
    const ours =
      typeof seal === 'string' &&
      seal.length === expected?.length &&
      timingSafeEqual(Buffer.from(seal), Buffer.from(expected));
    if (ours) previous = seal;
    results.push({ value, ours });
  }
  return { results, last: previous };
}

/**
 * The seal of the last line ralph wrote, per loop directory, kept beside the key: lines removed
 * from the end of evidence.jsonl (a rejection the agent wants forgotten) leave the file's chain
 * ending elsewhere. Once seen, the loss stays recorded (`lost`), also after ralph appends again.
 */
export interface EvidenceHead {
  seal: string;
  /** When ralph found lines it wrote missing, and what was missing. */
  lost?: string | undefined;
}

function headFile(stateDir: string, loopDir: string): string {
  return join(loopStateDir(stateDir, loopDir), 'evidence-head.json');
}

export async function readEvidenceHead(
  stateDir: string,
  loopDir: string,
): Promise<EvidenceHead | undefined> {
  const text = await readFile(headFile(stateDir, loopDir), 'utf8').catch(() => undefined);
  try {
    const value = JSON.parse(text ?? 'null') as Partial<EvidenceHead> | null;
    return typeof value?.seal === 'string'
      ? { seal: value.seal, ...(typeof value.lost === 'string' ? { lost: value.lost } : {}) }
      : undefined;
  } catch {
    return undefined;
  }
}

export async function writeEvidenceHead(
  stateDir: string,
  loopDir: string,
  head: EvidenceHead,
): Promise<void> {
  const file = headFile(stateDir, loopDir);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify(head)}\n`);
}

/** Why the file's chain does not end where ralph left it, if it does not. */
export function lostLines(head: EvidenceHead | undefined, last: string): string | undefined {
  if (head === undefined) return undefined;
  if (head.lost !== undefined) return head.lost;
  return head.seal === last ? undefined : 'lines ralph wrote are missing from its end';
}
