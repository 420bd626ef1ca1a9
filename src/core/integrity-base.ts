import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  integrityStateFile,
  readIntegrityState,
  writeIntegrityState,
} from '../state/integrity-store.js';
import { readEvidence } from '../state/evidence-log.js';
import { loopStateDir } from '../state/user-state.js';
import { scriptsRunBy } from './check-setup.js';
import type { LoopContext, StartPoint } from './loop-types.js';
import { executablesRunBy, hashExecutables } from './runner-config.js';
import { weakerSuite, type TestCounts } from './test-counts.js';
import { findTestTampering, readStartPoint, readTestDiff } from './test-integrity.js';

/**
 * The integrity base (issue 12): the tree where every check last held, per loop directory, and
 * the test counts its checks reported there. Read from ralph's user state dir when a run starts,
 * so what a rejected iteration left in the tree (committed or not) is measured against the last
 * verified state in the next run too, instead of becoming its new starting point. It moves on
 * only when a story is verified or the final quality check passes.
 */

/** Where the next claim's changes are measured from: the base, read or loaded on first use. */
export async function integrityStart(
  ctx: LoopContext,
  storyCommands: readonly string[],
): Promise<StartPoint | undefined> {
  const runner = ctx.deps.runCheck;
  const settings = ctx.options.verification;
  if (runner === undefined || settings?.testIntegrity !== true) return undefined;
  const base = ctx.integrityBase;
  if (base.start !== undefined) return base.start;
  const { stateDir, loopDir, cwd } = ctx.options;
  if (base.tests === undefined && stateDir !== undefined) {
    const state = await readIntegrityState(stateDir, loopDir);
    base.tests = state.tests;
    const saved = state.base;
    const exists =
      saved !== undefined &&
      (await runner.git(
        ['--no-replace-objects', 'cat-file', '-e', `${saved.commit}^{commit}`],
        cwd,
      )) !== undefined;
    if (saved !== undefined && exists) {
      base.start = {
        commit: saved.commit,
        untracked: new Set(saved.untracked),
        testBlobs: saved.testBlobs,
        executables: saved.executables ?? (await executables(ctx, storyCommands)),
      };
      await warnOfChangesSince(ctx, base.start, saved.at);
      return base.start;
    }
    if (saved !== undefined) {
      await warn(
        ctx,
        `the tree ralph last verified (${saved.commit.slice(0, 12)}) is gone from git: test integrity compares with the tree as it is now`,
      );
    }
    const fallback = saved === undefined ? await lostBase(ctx) : undefined;
    if (fallback !== undefined) {
      base.start = {
        commit: fallback,
        untracked: new Set(),
        testBlobs: {},
        executables: await executables(ctx, storyCommands),
      };
      await warnOfChangesSince(ctx, base.start, 'its last recorded base');
      await save(ctx);
      return base.start;
    }
  }
  base.tests ??= {};
  const start = await readStartPoint(runner, cwd, settings.testFiles);
  base.start =
    start === undefined
      ? undefined
      : { ...start, executables: await executables(ctx, storyCommands) };
  await save(ctx);
  return base.start;
}

/**
 * Every check held on the tree as it is now: it becomes the base, and the checks' test counts
 * the ones later claims must not fall below.
 */
export async function moveIntegrityBase(
  ctx: LoopContext,
  counts: Readonly<Record<string, TestCounts>>,
  storyCommands: readonly string[],
): Promise<void> {
  const runner = ctx.deps.runCheck;
  const settings = ctx.options.verification;
  if (runner === undefined || settings === undefined) return;
  ctx.integrityBase.tests = { ...ctx.integrityBase.tests, ...counts };
  if (settings.testIntegrity) {
    const start = await readStartPoint(runner, ctx.options.cwd, settings.testFiles);
    ctx.integrityBase.start =
      start === undefined
        ? undefined
        : { ...start, executables: await executables(ctx, storyCommands) };
  }
  await save(ctx);
}

/** The check's key in the stored counts. */
export function countsKey(kind: string, command: string | undefined): string {
  return `${kind}:${command ?? ''}`;
}

/** Why this check's counts show a weaker suite than at the last verified state, if they do. */
export function fewerTests(
  ctx: LoopContext,
  key: string,
  now: TestCounts | undefined,
): string | undefined {
  const then = ctx.integrityBase.tests?.[key];
  if (then === undefined) return undefined;
  // The same command's runner printed its summary then: output without one now was silenced.
  if (now === undefined)
    return `no test summary now (${then.runner} reported ${then.passed} passed)`;
  return weakerSuite(then, now);
}

async function save(ctx: LoopContext): Promise<void> {
  const { stateDir, loopDir, cwd } = ctx.options;
  const start = ctx.integrityBase.start;
  if (stateDir === undefined) return;
  if (start !== undefined) {
    // A ref keeps the base's objects from git's garbage collection (a `stash create` commit is
    // reachable from nothing else).
    const name = basename(loopStateDir(stateDir, loopDir));
    await ctx.deps.runCheck?.git(['update-ref', `refs/ralph/integrity/${name}`, start.commit], cwd);
  }
  await writeIntegrityState(stateDir, {
    loopDir,
    ...(start === undefined
      ? {}
      : {
          base: {
            commit: start.commit,
            untracked: [...start.untracked],
            testBlobs: { ...start.testBlobs },
            executables: { ...start.executables },
            at: ctx.at(),
          },
        }),
    tests: ctx.integrityBase.tests ?? {},
  });
}

/**
 * The executables the checks start — from the quality checks, the stories' `verify` and the
 * package.json scripts they run — with what they are now.
 */
async function executables(
  ctx: LoopContext,
  storyCommands: readonly string[],
): Promise<Record<string, string>> {
  const { cwd } = ctx.options;
  const commands = [
    ...Object.values(ctx.options.verification?.qualityChecks ?? {}),
    ...storyCommands,
  ];
  const scripts: Record<string, unknown> = await readFile(join(cwd, 'package.json'), 'utf8')
    .then((text) => (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts ?? {})
    .catch((): Record<string, unknown> => ({}));
  const run = scriptsRunBy(commands).flatMap((name) =>
    [name, `pre${name}`, `post${name}`].map((each) => scripts[each]),
  );
  const texts = run.filter((each): each is string => typeof each === 'string');
  return hashExecutables(cwd, executablesRunBy([...commands, ...texts]));
}

/**
 * integrity.json gone (deleted between runs: attack 06g) on a loop ralph has judged before: the
 * base comes from the ref ralph keeps for it, or else from the commit of the newest check that
 * passed in ralph's sealed evidence, said loudly either way. undefined for a loop ralph never
 * judged (its first run) or when neither is in git any more.
 */
async function lostBase(ctx: LoopContext): Promise<string | undefined> {
  const { stateDir, loopDir, cwd } = ctx.options;
  const runner = ctx.deps.runCheck;
  if (stateDir === undefined || runner === undefined) return undefined;
  const commitOf = async (name: string): Promise<string | undefined> => {
    const args = ['--no-replace-objects', 'rev-parse', '--verify', '-q', `${name}^{commit}`];
    const commit = (await runner.git(args, cwd))?.trim();
    return commit === '' ? undefined : commit;
  };
  const ref = `refs/ralph/integrity/${basename(loopStateDir(stateDir, loopDir))}`;
  const file = integrityStateFile(stateDir, loopDir);
  const fromRef = await commitOf(ref);
  if (fromRef !== undefined) {
    await warn(
      ctx,
      `ralph's integrity record for this loop is missing (${file}): test integrity compares with the tree ralph last verified, kept at ${ref} (${fromRef.slice(0, 12)})`,
    );
    return fromRef;
  }
  const entries = await readEvidence(loopDir, stateDir);
  for (const entry of [...entries].reverse()) {
    if (entry.verdict !== 'pass' || entry.commit === undefined) continue;
    const commit = await commitOf(entry.commit);
    if (commit === undefined) continue;
    await warn(
      ctx,
      `WARNING: ralph's integrity record for this loop is missing (${file}) and so is ${ref}, though ralph has verified stories here: someone removed them. Test integrity compares with the commit of the newest verified check in evidence.jsonl (${commit.slice(0, 12)}, ${entry.at})`,
    );
    return commit;
  }
  return undefined;
}

/** Test files already weakened against the base when a run starts: said before any claim. */
async function warnOfChangesSince(ctx: LoopContext, start: StartPoint, at: string): Promise<void> {
  const runner = ctx.deps.runCheck;
  const settings = ctx.options.verification;
  if (runner === undefined || settings === undefined) return;
  const diff = await readTestDiff(runner, ctx.options.cwd, start, settings.testFiles);
  const problems = diff === undefined ? [] : findTestTampering(diff);
  if (problems.length === 0) return;
  const file = integrityStateFile(ctx.options.stateDir ?? '', ctx.options.loopDir);
  await warn(
    ctx,
    `since ralph last verified this loop (${at}) the tests changed: ${problems.join('; ')}. The next claim is rejected for it unless its story allows test changes (or delete ${file} and the ref refs/ralph/integrity/${basename(loopStateDir(ctx.options.stateDir ?? '', ctx.options.loopDir))} to accept the tree as it is)`,
  );
}

async function warn(ctx: LoopContext, message: string): Promise<void> {
  await ctx.emit({ type: 'warning', at: ctx.at(), message });
}
