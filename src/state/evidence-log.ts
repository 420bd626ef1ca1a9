import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import {
  checkSeals,
  evidenceKey,
  lostLines,
  readEvidenceHead,
  sealLine,
  writeEvidenceHead,
} from './evidence-seal.js';
import { loopPaths } from './paths.js';

/**
 * DIR/evidence.jsonl (issue 12): one line per check ralph ran to decide whether a story the
 * agent claimed really is done — the command, how it ended and the tail of its output — so a
 * person can see when and how every passing story was verified (`ralph evidence`, `ralph status`).
 */

export const EVIDENCE_KINDS = ['verify', 'quality', 'integrity', 'unchecked', 'parked'] as const;

export const evidenceEntrySchema = z.object({
  /** ISO 8601 time the check finished. */
  at: z.string(),
  storyId: z
    .string()
    .describe('The story the check judged; "(final)" for the check before COMPLETE'),
  iteration: z.number(),
  /** HEAD when the check ran (undefined outside a git repository). */
  commit: z.string().optional(),
  /**
   * verify: the story's own command; quality: a quality check; integrity: the test-file scan;
   * unchecked: claimed with no checks to run; parked: ralph parked the story (not a check).
   */
  kind: z.enum(EVIDENCE_KINDS),
  /** The quality check's name, or the story's `verify` as written. */
  name: z.string().optional(),
  command: z.string().optional(),
  exitCode: z.number().optional(),
  timedOut: z.boolean().optional(),
  durationMs: z.number(),
  outputTail: z.string(),
  verdict: z.enum(['pass', 'fail', 'unchecked']),
  /** The tests the check's runner reported (verify and quality checks of a runner ralph reads). */
  tests: z
    .object({
      runner: z.string(),
      passed: z.number(),
      skipped: z.number(),
      todo: z.number(),
    })
    .optional(),
  /** What ralph wants a reader to know about this check (e.g. no test counts to compare). */
  note: z.string().optional(),
  /** ralph's HMAC chain over the line (evidence-seal.ts): a line without a good one is not ralph's. */
  seal: z.string().optional(),
});
export type EvidenceEntry = z.infer<typeof evidenceEntrySchema>;

/**
 * Appends lines; the file is rewritten whole and renamed, so a reader never sees half a line.
 * With ralph's user state dir, each line is sealed (evidence-seal.ts), chained on from the last
 * line ralph wrote.
 */
export async function appendEvidence(
  dir: string,
  entries: readonly EvidenceEntry[],
  stateDir?: string,
): Promise<void> {
  if (entries.length === 0) return;
  const file = loopPaths(dir).evidence;
  const old = await readText(file);
  const key = stateDir === undefined ? undefined : await evidenceKey(stateDir, true);
  let previous = key === undefined ? '' : checkSeals(key, old.split('\n')).last;
  const head = stateDir === undefined ? undefined : await readEvidenceHead(stateDir, dir);
  const lost = lostLines(head, previous);
  const lines = entries.map((entry) => {
    const body: EvidenceEntry = evidenceEntrySchema.parse(entry);
    delete body.seal;
    if (key === undefined) return `${JSON.stringify(body)}\n`;
    const sealed = sealLine(key, previous, body);
    previous = sealed.seal;
    return sealed.line;
  });
  const separator = old === '' || old.endsWith('\n') ? '' : '\n';
  await writeFileAtomic(file, `${old}${separator}${lines.join('')}`);
  if (stateDir !== undefined && key !== undefined) {
    const at = entries[0]?.at ?? '';
    const kept = lost === undefined || head?.lost !== undefined ? lost : `${lost} (seen ${at})`;
    await writeEvidenceHead(stateDir, dir, { seal: previous, lost: kept });
  }
}

/**
 * Every valid line, oldest first; lines that do not parse (another tool's, a torn one) are
 * skipped. With ralph's user state dir, so are the lines ralph did not write (see readEvidenceLog).
 */
export async function readEvidence(dir: string, stateDir?: string): Promise<EvidenceEntry[]> {
  return (await readEvidenceLog(dir, stateDir)).entries;
}

/**
 * The lines ralph wrote, and how many others the file holds. Without `stateDir` (a library
 * caller with no state dir) every valid line counts and none is checked.
 */
export async function readEvidenceLog(
  dir: string,
  stateDir?: string,
): Promise<{ entries: EvidenceEntry[]; notRalphs: number; lost?: string | undefined }> {
  const lines = (await readText(loopPaths(dir).evidence)).split('\n');
  const key = stateDir === undefined ? undefined : await evidenceKey(stateDir, false);
  const { results, last } = checkSeals(key, lines);
  const lost =
    stateDir === undefined ? undefined : lostLines(await readEvidenceHead(stateDir, dir), last);
  const entries: EvidenceEntry[] = [];
  let notRalphs = 0;
  for (const { value, ours } of results) {
    const parsed = evidenceEntrySchema.safeParse(value);
    if (stateDir !== undefined && !ours) notRalphs += 1;
    else if (parsed.success) entries.push(parsed.data);
  }
  return { entries, notRalphs, ...(lost === undefined ? {} : { lost }) };
}

async function readText(file: string): Promise<string> {
  return readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  });
}

/** How one story was last verified: the checks of its latest verification, oldest first. */
export interface StoryVerification {
  storyId: string;
  at: string;
  iteration: number;
  commit: string | undefined;
  verdict: 'pass' | 'fail' | 'unchecked';
  checks: EvidenceEntry[];
}

/**
 * Per story, its latest verification: the lines of its last iteration with evidence. A story
 * verified twice (rejected, then accepted) shows the later one; `ralph evidence` shows all.
 */
export function latestVerifications(entries: readonly EvidenceEntry[]): StoryVerification[] {
  const byStory = new Map<string, EvidenceEntry[]>();
  for (const entry of entries) {
    const earlier = byStory.get(entry.storyId);
    const sameRun = earlier?.[0]?.iteration === entry.iteration;
    byStory.set(entry.storyId, earlier !== undefined && sameRun ? [...earlier, entry] : [entry]);
  }
  return [...byStory.values()].flatMap((checks) => {
    const last = checks.at(-1);
    if (last === undefined) return [];
    const verdict = checks.some((check) => check.verdict === 'fail')
      ? 'fail'
      : checks.every((check) => check.verdict === 'unchecked')
        ? 'unchecked'
        : 'pass';
    return [
      {
        storyId: last.storyId,
        at: last.at,
        iteration: last.iteration,
        commit: last.commit,
        verdict,
        checks,
      },
    ];
  });
}

/**
 * How often ralph has rejected a story since it last passed a verification or was parked (a
 * person who unparks it gives it a fresh count), and the failing check of the latest rejection.
 */
export function rejectionsOf(
  entries: readonly EvidenceEntry[],
  storyId: string,
): { count: number; lastFailure: EvidenceEntry | undefined } {
  let count = 0;
  let lastFailure: EvidenceEntry | undefined;
  // One verification is the story's lines of one iteration; a park line stands on its own.
  const groups: EvidenceEntry[][] = [];
  for (const entry of entries) {
    if (entry.storyId !== storyId) continue;
    const last = groups.at(-1);
    const head = last?.[0];
    const same = head?.iteration === entry.iteration && head.kind !== 'parked';
    if (last !== undefined && same && entry.kind !== 'parked') {
      last.push(entry);
    } else groups.push([entry]);
  }
  for (const group of groups) {
    const failure = group.find((entry) => entry.verdict === 'fail');
    if (failure !== undefined) {
      count += 1;
      lastFailure = failure;
    } else {
      // Accepted (checked or not) or parked: the count starts again.
      count = 0;
      lastFailure = undefined;
    }
  }
  return { count, lastFailure };
}
