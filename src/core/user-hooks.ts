import type { UserHookVariables, LoopContext, Stop } from './loop-types.js';
import type { HookPoint } from '../state/paths.js';

/**
 * When the engine calls the person's hook scripts (design.md §2, `hooks/<point>.sh`) and what it
 * tells them, in the variables of the Ralph Hybrid spec. The runner itself is a port
 * (`LoopDependencies.hooks`): the CLI supplies one that runs the scripts (src/hooks/). A hook
 * that fails or hangs is reported as a warning and never stops the loop.
 */

export async function callUserHook(
  ctx: LoopContext,
  point: HookPoint,
  variables: UserHookVariables = {},
): Promise<void> {
  const runner = ctx.deps.hooks;
  if (runner === undefined) return;
  const problem = await runner.run(
    point,
    {
      RALPH_HOOK_POINT: point,
      RALPH_FEATURE_DIR: ctx.options.loopDir,
      RALPH_FEATURE_NAME: ctx.options.feature,
      RALPH_PRD_FILE: ctx.options.taskListFile,
      ...variables,
    },
    ctx.deps.signal.aborted,
    ctx.deps.signal,
  );
  if (problem !== undefined)
    await ctx.emit({ type: 'warning', at: ctx.at(), message: `hook ${point}: ${problem}` });
}

export function iterationVariables(iteration: number, story: { id: string }): UserHookVariables {
  return { RALPH_ITERATION: String(iteration), RALPH_STORY_ID: story.id };
}

/** After run_finished: on_completion or on_error, then post_run, with how the run ended. */
export async function callEndUserHooks(
  ctx: LoopContext,
  stop: Stop,
  iterations: number,
): Promise<void> {
  const ended = {
    RALPH_RUN_STATUS:
      stop.state === 'COMPLETE' ? 'complete' : stop.state === 'PAUSED' ? 'user_exit' : 'error',
    RALPH_RUN_STATE: stop.state,
    RALPH_RUN_REASON: stop.reason,
    RALPH_ITERATION: String(iterations),
  };
  if (stop.state === 'COMPLETE') await callUserHook(ctx, 'on_completion', ended);
  if (stop.state === 'ERROR' || stop.state === 'REACHED_LIMIT') {
    await callUserHook(ctx, 'on_error', { ...ended, RALPH_ERROR_TYPE: errorType(stop) });
  }
  await callUserHook(ctx, 'post_run', ended);
}

/** The spec's names for the two it lists; ralph's own stop reason for the others. */
function errorType(stop: Stop): string {
  if (stop.stopReason === 'breaker') return 'circuit_breaker';
  return stop.stopReason;
}
