import * as z from 'zod';
import type { HookPoint } from '../state/paths.js';
import { URGENT_TIMEOUT_MS } from './script-hooks.js';

/** The RALPH_* variables of a hook point (the same names the scripts get in their environment). */
export type HookVariables = Record<string, string>;

/** What runs a point's hooks (the engine's HookRunner port, structurally). */
export interface HookRunner {
  run(
    point: HookPoint,
    variables: HookVariables,
    urgent: boolean,
    signal: AbortSignal,
  ): Promise<string | undefined>;
}

/**
 * Hooks registered in code (`startRun({ hooks: { post_iteration: [fn] } })`), the library's
 * counterpart of the spec's `hk_register`. A hook gets the variables a script of the same point
 * gets in its environment (RALPH_HOOK_POINT, RALPH_ITERATION, …), and an AbortSignal that aborts
 * when the run is interrupted or the hook's time is up. A hook that throws or rejects is treated
 * like a script that exits non-zero: a warning, and the next hook runs.
 */
export type CodeHook = (
  variables: Readonly<HookVariables>,
  context: { point: HookPoint; signal: AbortSignal },
) => void | Promise<void>;

/** One hook or several, in the order they run, per point. */
export type CodeHooks = Partial<Record<HookPoint, CodeHook | readonly CodeHook[]>>;

const hookFunction = z.custom<CodeHook>((value) => typeof value === 'function', {
  message: 'expected a function (variables, { point, signal }) => void | Promise<void>',
});

const pointHooks = z.union([hookFunction, z.array(hookFunction).readonly()]).optional();

/** What `startRun`'s `hooks` option accepts: a known point → a function or a list of them. */
export const codeHooksSchema = z.strictObject({
  pre_run: pointHooks,
  post_run: pointHooks,
  pre_iteration: pointHooks,
  post_iteration: pointHooks,
  on_completion: pointHooks,
  on_error: pointHooks,
} satisfies Record<HookPoint, typeof pointHooks>);

export interface CodeHookOptions {
  /** Per hook; 0 means none (hooks.timeoutSeconds, as for scripts). */
  timeoutMs: number;
  /** How long a hook may go on once the run is interrupted; URGENT_TIMEOUT_MS by default. */
  urgentMs?: number;
}

/**
 * The registered hooks as the engine's hook port. A function cannot be killed: past its time
 * ralph stops waiting for it (and aborts its signal) and goes on.
 */
export function codeHooks(hooks: CodeHooks, options: CodeHookOptions): HookRunner {
  return {
    async run(point, variables, urgent, signal) {
      const registered = hooks[point];
      const list: readonly CodeHook[] =
        registered === undefined
          ? []
          : typeof registered === 'function'
            ? [registered]
            : registered;
      const urgentMs = options.urgentMs ?? URGENT_TIMEOUT_MS;
      const problems: string[] = [];
      for (const [index, hook] of list.entries()) {
        const limitMs = urgent
          ? Math.min(options.timeoutMs || urgentMs, urgentMs)
          : options.timeoutMs;
        const problem = await callHook(hook, point, variables, { limitMs, urgentMs, signal });
        if (problem !== undefined) problems.push(`${hookName(hook, index)}: ${problem}`);
        if (signal.aborted && problem?.startsWith('still running') === true) break;
      }
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  };
}

async function callHook(
  hook: CodeHook,
  point: HookPoint,
  variables: HookVariables,
  limits: { limitMs: number; urgentMs: number; signal: AbortSignal },
): Promise<string | undefined> {
  const own = new AbortController();
  const timers: NodeJS.Timeout[] = [];
  let giveUp: (why: string) => void = () => undefined;
  const gaveUp = new Promise<string>((resolve) => {
    giveUp = (why) => {
      own.abort();
      resolve(why);
    };
  });
  const after = (ms: number, why: string): void => {
    if (ms > 0 && ms <= 2_147_483_647)
      timers.push(
        setTimeout(() => {
          giveUp(why);
        }, ms),
      );
  };
  after(
    limits.limitMs,
    `still running after ${limits.limitMs / 1000} s (hooks.timeoutSeconds); not waited for`,
  );
  const onAbort = (): void => {
    after(
      limits.urgentMs,
      `still running ${limits.urgentMs / 1000} s after the run was interrupted; not waited for`,
    );
  };
  if (limits.signal.aborted) onAbort();
  else limits.signal.addEventListener('abort', onAbort, { once: true });
  const ran = (async () => {
    try {
      await hook({ ...variables }, { point, signal: own.signal });
      return undefined;
    } catch (error) {
      return `threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
    }
  })();
  try {
    return await Promise.race([ran, gaveUp]);
  } finally {
    limits.signal.removeEventListener('abort', onAbort);
    for (const timer of timers) clearTimeout(timer);
  }
}

function hookName(hook: CodeHook, index: number): string {
  return hook.name === '' ? `code hook ${index + 1}` : `code hook ${index + 1} (${hook.name})`;
}

/** Several runners as one: each in turn, their problems together. */
export function composeHooks(
  ...runners: readonly (HookRunner | undefined)[]
): HookRunner | undefined {
  const present = runners.filter((runner): runner is HookRunner => runner !== undefined);
  if (present.length <= 1) return present[0];
  return {
    async run(point, variables, urgent, signal) {
      const problems: string[] = [];
      for (const runner of present) {
        const problem = await runner.run(point, variables, urgent, signal);
        if (problem !== undefined) problems.push(problem);
      }
      return problems.length === 0 ? undefined : problems.join('; ');
    },
  };
}
