import { runToCompletion } from '../spawn.js';
import type { AgentProbe, AgentProbeResult } from '../types.js';

/** `claude --version` prints e.g. `2.1.330 (Claude Code)`; only the number matters. */
const VERSION_PATTERN = /\b(\d+\.\d+\.\d+(?:[-+][\w.]+)?)\b/;

/**
 * Finds the Claude Code CLI by running `<command> --version`. The command comes from
 * RALPH_CLAUDE_BIN / config (resolved by the caller) or is plain `claude` looked up on PATH.
 */
export function createClaudeProbe(command: string, env: NodeJS.ProcessEnv): AgentProbe {
  return {
    async probe(): Promise<AgentProbeResult> {
      const base = { agent: 'claude' as const, command };
      const result = await runToCompletion(command, ['--version'], { timeoutMs: 10_000, env });
      if (result.code === 'ENOENT') {
        return { ...base, found: false, version: undefined, problem: `${command} not found` };
      }
      if (result.code !== undefined) {
        return {
          ...base,
          found: false,
          version: undefined,
          problem: `${command} could not be started (${result.code})`,
        };
      }
      if (result.timedOut) {
        return { ...base, found: true, version: undefined, problem: `${command} --version hung` };
      }
      if (result.exitCode !== 0) {
        const said = (result.stderr || result.stdout).trim().split('\n')[0] ?? '';
        return {
          ...base,
          found: true,
          version: undefined,
          problem: `${command} --version exited ${String(result.exitCode)}${said ? `: ${said}` : ''}`,
        };
      }
      const version = VERSION_PATTERN.exec(result.stdout)?.[1];
      return { ...base, found: true, version, problem: undefined };
    },
  };
}
