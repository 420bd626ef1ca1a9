/**
 * The port between the loop and an agent CLI. Each agent (Claude Code first) lives in its own
 * folder under src/agents/ and is reached only through these types.
 */

export type AgentId = 'claude';

/** What preflight needs to know about an agent before a run: is it installed, which version. */
export interface AgentProbeResult {
  agent: AgentId;
  /** The executable ralph would start (after RALPH_CLAUDE_BIN / config / PATH). */
  command: string;
  found: boolean;
  version: string | undefined;
  /** Why the agent could not be used, for the person reading preflight output. */
  problem: string | undefined;
}

export interface AgentProbe {
  probe(): Promise<AgentProbeResult>;
}
