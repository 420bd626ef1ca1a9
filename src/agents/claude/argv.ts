import type { PermissionMode } from '../types.js';

/** What the argv depends on; the MCP part is resolved beforehand (mcp.ts reads config files). */
export interface ClaudeArgsInput {
  model: string | undefined;
  permission: PermissionMode;
  settings: Record<string, unknown> | undefined;
  /** The JSON for `--mcp-config` (with `--strict-mcp-config`); undefined leaves the user's MCP config. */
  mcpConfig: string | undefined;
}

/**
 * `-p --output-format stream-json --verbose [--model M] [--dangerously-skip-permissions |
 * --permission-mode MODE] [--settings <json>] [--mcp-config <json> --strict-mcp-config]`.
 * stream-json needs --verbose in print mode (without it Claude Code exits 1).
 *
 * The prompt is not among them: it goes to stdin (run-claude.ts). `claude -p` without a prompt
 * argument reads its piped stdin to the end and takes that as the prompt (2.1.330: up to 10 MiB;
 * it waits 3 s for a first byte, and ralph writes at once). An argument would fail with E2BIG
 * past 128 KiB, and one starting with "-" would be read as an option.
 */
export function buildClaudeArgs(input: ClaudeArgsInput): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose'];
  if (input.model !== undefined && input.model !== '') args.push('--model', input.model);
  if (input.permission.kind === 'skip') args.push('--dangerously-skip-permissions');
  else args.push('--permission-mode', input.permission.mode);
  if (input.settings !== undefined) args.push('--settings', JSON.stringify(input.settings));
  if (input.mcpConfig !== undefined)
    args.push('--mcp-config', input.mcpConfig, '--strict-mcp-config');
  return args;
}
