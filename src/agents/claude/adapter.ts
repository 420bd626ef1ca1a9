import { RalphError } from '../../util/errors.js';
import type { AgentAdapter, AgentRunRequest } from '../types.js';
import { buildClaudeArgs } from './argv.js';
import { mcpConfigFor } from './mcp.js';
import { createClaudeProbe } from './probe.js';
import { runClaude } from './run-claude.js';
import type { RunClaudeOptions } from './run-claude.js';

export interface ClaudeAdapterOptions extends RunClaudeOptions {
  /** The executable, already resolved from RALPH_CLAUDE_BIN / agents.claude.command / `claude`. */
  command: string;
  /** The environment for the `--version` probe; runs use each request's env. */
  env: NodeJS.ProcessEnv;
}

type ArgvRequest = Omit<AgentRunRequest, 'signal' | 'logFile' | 'onEvent'>;

/**
 * Claude Code behind the AgentAdapter port. Both commandLine() and run() throw a RalphError
 * (AGENT_CONFIG) when a story names an MCP server that is configured nowhere.
 */
export function createClaudeAdapter(options: ClaudeAdapterOptions): AgentAdapter {
  const { command } = options;
  const probe = createClaudeProbe(command, options.env);
  const argsFor = (request: ArgvRequest) =>
    buildClaudeArgs({
      model: request.model,
      permission: request.permission,
      settings: request.settings,
      mcpConfig: mcpConfigFor(request.mcpServers, request.cwd, request.env),
    });
  return {
    id: 'claude',
    probe: () => probe.probe(),
    mcpServersProblem: (names, cwd) => {
      try {
        mcpConfigFor(names, cwd, options.env);
        return undefined;
      } catch (error) {
        if (error instanceof RalphError) return error.message;
        throw error;
      }
    },
    commandLine: (request) => ({ command, args: argsFor(request) }),
    run: async (request) => runClaude(command, argsFor(request), request, options),
  };
}
