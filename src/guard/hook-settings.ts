/**
 * The Claude Code settings that install the guard: an HTTP hook for `ralph run` (passed with
 * `--settings`, the user's own settings files untouched) and a command hook for interactive
 * sessions (`ralph setup --guard`). Both match every tool.
 */

/** The variable that carries a run's guard token into the agent's environment. */
export const GUARD_TOKEN_VARIABLE = 'RALPH_GUARD_TOKEN';

/**
 * Every tool: an MCP tool or one the guard does not know is judged too (denied in unattended runs
 * unless guard.allowTools names it), so nothing reaches the agent's hands unseen.
 */
export const GUARDED_TOOLS = '*';

/**
 * Generous: the service answers every call within its time budget (guard.timeBudgetMs, 2 s by
 * default: a slower decision is a deny), but a timeout makes Claude Code run the tool unchecked
 * (an HTTP hook fails open), so only a hung ralph should ever reach it.
 */
export const HTTP_HOOK_TIMEOUT_SECONDS = 600;

export function httpGuardHook(url: string): Record<string, unknown> {
  return {
    type: 'http',
    url,
    timeout: HTTP_HOOK_TIMEOUT_SECONDS,
    // The token stays out of argv (world-readable in /proc): Claude Code reads it from its env.
    headers: { Authorization: `Bearer $${GUARD_TOKEN_VARIABLE}` },
    allowedEnvVars: [GUARD_TOKEN_VARIABLE],
  };
}

/**
 * Where the agent cannot be bound to ralph's life (no `setpriv`): a second hook that refuses
 * every tool call once ralph's process is gone. Exit 2 blocks the call (facts §5).
 */
export function livenessHook(pid: number): Record<string, unknown> {
  return {
    type: 'command',
    command: `kill -0 ${pid} 2>/dev/null || { echo "ralph guard: the ralph run that guards this agent is gone; refused" >&2; exit 2; }`,
    timeout: 10,
  };
}

/** `settings` with the guard's PreToolUse group added (other hooks and keys are kept). */
export function withGuardHooks(
  settings: Record<string, unknown> | undefined,
  hooks: Record<string, unknown>[],
): Record<string, unknown> {
  const base = settings ?? {};
  const existing = (base.hooks ?? {}) as Record<string, unknown>;
  const preToolUse = Array.isArray(existing.PreToolUse) ? (existing.PreToolUse as unknown[]) : [];
  return {
    ...base,
    hooks: { ...existing, PreToolUse: [...preToolUse, { matcher: GUARDED_TOOLS, hooks }] },
  };
}
