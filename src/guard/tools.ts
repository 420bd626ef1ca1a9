import type { GuardPolicy } from './policy.js';
import type { Finding } from './shell/analyze.js';
import { globToRegExp } from './sensitive.js';

/**
 * Tools other than the ones judged by their input (Bash and the file tools, decide.ts). The
 * PreToolUse matcher routes every tool here (hook-settings.ts): a tool the guard does not know —
 * an MCP server's (`mcp__fs__write_file` could write anywhere), or one a later Claude Code adds —
 * is not let through unseen. In an unattended run it is denied unless guard.allowTools names it.
 */

/** Claude Code's own tools that neither run commands nor touch files by path. */
const HARMLESS = new Set([
  'TodoWrite',
  'TodoRead',
  'Task',
  'Agent',
  'BashOutput',
  'KillShell',
  'KillBash',
  'TaskOutput',
  'TaskStop',
  'ExitPlanMode',
  'EnterPlanMode',
  'AskUserQuestion',
  'Skill',
  'SlashCommand',
  'ToolSearch',
]);

/** Tools that reach the network: judged by guard.network like curl. */
const NETWORK = new Set(['WebFetch', 'WebSearch']);

export function otherToolFinding(tool: string, policy: GuardPolicy): Finding | undefined {
  if (policy.allowTools.some((pattern) => globToRegExp(pattern.replace(/\*/g, '**')).test(tool)))
    return undefined;
  if (HARMLESS.has(tool)) return undefined;
  if (NETWORK.has(tool)) {
    if (policy.network === 'allow') return undefined;
    return {
      decision: policy.network,
      rule: 'network',
      reason: `${tool} reaches the network (guard.network: ${policy.network})`,
    };
  }
  const mcp = tool.startsWith('mcp__') || tool.includes('Mcp');
  return {
    decision: 'ask',
    rule: mcp ? 'mcp-tool' : 'unknown-tool',
    reason: `${tool} is ${mcp ? 'an MCP tool' : 'a tool the guard does not know'}, whose effects it cannot check; list it in guard.allowTools to let the agent use it`,
  };
}
