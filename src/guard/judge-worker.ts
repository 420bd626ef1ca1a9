import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ToolCall, Verdict } from './decide.js';
import type { JudgeReply, JudgeRequest } from './decide-worker.js';
import type { GuardPolicy } from './policy.js';

/**
 * Judges tool calls in a worker thread with a time budget. Claude Code runs the tool unchecked
 * when its HTTP hook times out (claude-code-facts.md §11), and one pathological command (a
 * brace expansion over a 100 000-file folder) once kept the judge — then on ralph's event loop —
 * busy for 517 s. Now every call is answered within its budget: a decision that takes longer is a
 * deny with a reason, the busy thread is terminated and a fresh one takes the calls still waiting.
 */

/** The default budget: far below the hook's timeout, far above an ordinary decision (< 1 ms). */
export const DEFAULT_TIME_BUDGET_MS = 2000;

/**
 * A thread that is still starting (loading the shell parser, ~60 ms, more on a busy machine)
 * gets this much on top of the budget: a slow start is not the call's fault.
 */
const START_ALLOWANCE_MS = 10_000;

export interface JudgeWorkerOptions {
  policy: GuardPolicy;
  budgetMs?: number | undefined;
  /** The worker script; by default decide-worker.js beside this module. */
  workerUrl?: URL | undefined;
  /** A worker that cannot start (its parser does not load): every call would be refused. */
  onFailure: (error: Error) => void;
}

export interface JudgeWorker {
  judge(call: ToolCall): Promise<Verdict>;
  /** Threads started so far (1 + replacements), for tests. */
  started(): number;
  close(): Promise<void>;
}

interface Pending {
  call: ToolCall;
  resolve: (verdict: Verdict) => void;
  timer: NodeJS.Timeout;
}

export function startJudgeWorker(options: JudgeWorkerOptions): JudgeWorker {
  const budgetMs = options.budgetMs ?? DEFAULT_TIME_BUDGET_MS;
  const url = options.workerUrl ?? defaultWorkerUrl();
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let starts = 0;
  let closed = false;
  let failed: Error | undefined;
  let current = spawn();

  function spawn(): { worker: Worker; ready: boolean } {
    starts += 1;
    const worker = new Worker(url, { workerData: { policy: options.policy } });
    worker.unref();
    const state = { worker, ready: false };
    worker.on('message', (reply: JudgeReply) => {
      if (reply.type === 'ready') state.ready = true;
      else if (reply.type === 'failed') fail(new Error(`the guard cannot start: ${reply.message}`));
      else settle(reply.id, reply.verdict);
    });
    worker.on('error', (error) => {
      if (state !== current || closed) return;
      if (!state.ready) fail(error);
      else replace();
    });
    return state;
  }

  function fail(error: Error) {
    if (closed || failed !== undefined) return;
    failed = error;
    for (const id of [...pending.keys()])
      settle(id, deny('bad-input', `the guard cannot judge calls (${error.message})`));
    options.onFailure(error);
  }

  function settle(id: number, verdict: Verdict) {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(verdict);
  }

  /** A fresh thread for the calls still waiting; the busy one is stopped. */
  function replace() {
    const old = current;
    current = spawn();
    void old.worker.terminate();
    for (const [id, entry] of pending)
      current.worker.postMessage({ id, call: entry.call } satisfies JudgeRequest);
  }

  return {
    judge: (call) =>
      new Promise<Verdict>((resolve) => {
        if (closed || failed !== undefined) {
          const why = failed === undefined ? 'is closed' : `cannot judge calls (${failed.message})`;
          resolve(deny('bad-input', `the guard service ${why}`));
          return;
        }
        const id = nextId++;
        const limit = budgetMs + (current.ready ? 0 : START_ALLOWANCE_MS);
        const timer = setTimeout(() => {
          settle(
            id,
            deny(
              'over-budget',
              `judging this call took longer than ${budgetMs} ms (the guard's time budget, guard.timeBudgetMs); write the command in smaller, plainer steps`,
            ),
          );
          replace();
        }, limit);
        timer.unref();
        pending.set(id, { call, resolve, timer });
        current.worker.postMessage({ id, call } satisfies JudgeRequest);
      }),
    started: () => starts,
    close: async () => {
      closed = true;
      for (const id of [...pending.keys()])
        settle(id, deny('bad-input', 'the guard service is closed'));
      await current.worker.terminate();
    },
  };
}

function deny(rule: string, reason: string): Verdict {
  return { decision: 'deny', rule, reason: `ralph guard: ${reason}; refused` };
}

/**
 * decide-worker.js beside this module (dist/guard/, also where the CLI bundle's rewritten
 * import.meta.url points); run from source (tests), the built copy in dist/.
 */
function defaultWorkerUrl(): URL {
  const beside = new URL('./decide-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  const built = new URL('../../dist/guard/decide-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return built;
  throw new Error(
    `the guard's worker script is missing (${fileURLToPath(beside)}); run \`npm run build\``,
  );
}
