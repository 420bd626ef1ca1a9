import type { PermissionMode } from '../types.js';

/** What the argv depends on; the MCP part is resolved beforehand (mcp.ts reads config files). */
export interface ClaudeArgsInput {
  prompt: string;
  model: string | undefined;
  permission: PermissionMode;
  settings: Record<string, unknown> | undefined;
  /** The JSON for `--mcp-config` (with `--strict-mcp-config`); undefined leaves the user's MCP config. */
  mcpConfig: string | undefined;
}

/**
 * `-p <prompt> --output-format stream-json --verbose [--model M] [--dangerously-skip-permissions |
 * --permission-mode MODE] [--settings <json>] [--mcp-config <json> --strict-mcp-config]`.
 * stream-json needs --verbose in print mode (without it Claude Code exits 1). The prompt comes
 * first because `--mcp-config` takes several values and would swallow a prompt after it.
 */
export function buildClaudeArgs(input: ClaudeArgsInput): string[] {
  const args = ['-p', promptArg(input.prompt), '--output-format', 'stream-json', '--verbose'];
  if (input.model !== undefined && input.model !== '') args.push('--model', input.model);
  if (input.permission.kind === 'skip') args.push('--dangerously-skip-permissions');
  else args.push('--permission-mode', input.permission.mode);
  if (input.settings !== undefined) args.push('--settings', JSON.stringify(input.settings));
  if (input.mcpConfig !== undefined)
    args.push('--mcp-config', input.mcpConfig, '--strict-mcp-config');
  return args;
}

/**
 * Claude Code's option parser reads an argument starting with "-" as an option ("error: unknown
 * option '--- …'" for a prompt with YAML front matter, measured on 2.1.330); a leading space
 * keeps it a prompt and means nothing to the model.
 */
function promptArg(prompt: string): string {
  return prompt.startsWith('-') ? ` ${prompt}` : prompt;
}
