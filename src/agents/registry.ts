import { createClaudeAdapter } from './claude/adapter.js';
import type { ProcessGroups } from './process-groups.js';
import type { CommandWrapper } from './spawn.js';
import type { AgentAdapter, AgentId } from './types.js';

export interface AgentOptions {
  /** The executable to start (RALPH_<AGENT>_BIN / config agents.<id>.command / the default name). */
  command: string;
  /** The environment the probe runs with; each run passes its own. */
  env: NodeJS.ProcessEnv;
  /** The run's live agent groups, when a run starts this agent (not for a probe). */
  processGroups?: ProcessGroups | undefined;
  /** Runs each agent process inside ralph's OS sandbox (not the probe). */
  wrap?: CommandWrapper | undefined;
}

/** The one place that knows which agents exist; a Record so a new AgentId cannot be forgotten. */
const FACTORIES: Readonly<Record<AgentId, (options: AgentOptions) => AgentAdapter>> = {
  claude: createClaudeAdapter,
};

export function createAgent(id: AgentId, options: AgentOptions): AgentAdapter {
  return FACTORIES[id](options);
}
