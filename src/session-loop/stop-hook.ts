import { homedir } from 'node:os';
import { loadConfig } from '../state/config.js';
import { configSchema } from '../state/config-schema.js';
import {
  decideStop,
  needsTranscript,
  type StopDecisionConfig,
  type StopDecision,
} from './decide.js';
import { stopHookInputSchema, type StopHookInput } from './hook-input.js';
import { applyWrites, readSessionLoopEntries, withLoopLock } from './store.js';
import { readLastAssistantText } from './transcript.js';

/**
 * The Stop hook behind `ralph stop-hook`, once the fast path (cli/commands/stop-hook.ts) has seen
 * that loop files exist. Exit codes matter to Claude Code (claude-code-facts.md §5): 0 with JSON
 * on stdout is the only channel used; 2 would feed stderr to the model AND block the stop, so a
 * crash message could trap a session; other codes show "Stop hook error" noise. So every path
 * here returns 0, explains problems on stderr and, when it lets the session stop for a reason
 * the user should see, in `systemMessage`.
 */

export interface StopHookIo {
  env: NodeJS.ProcessEnv;
  now: Date;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function runStopHook(
  raw: unknown,
  projectDir: string,
  io: StopHookIo,
): Promise<{ exitCode: 0; decision: StopDecision | undefined }> {
  const parsed = stopHookInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    warn(
      io,
      `hook input: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'invalid'}; letting the session stop`,
    );
    return { exitCode: 0, decision: undefined };
  }
  const input = parsed.data;
  const config = await hookConfig(projectDir, io);
  let decision: StopDecision;
  try {
    decision = await withLoopLock(projectDir, 'ralph stop-hook', async () => {
      const entries = await readSessionLoopEntries(projectDir);
      const transcriptText = await transcriptFor(input, entries);
      const decided = decideStop(input, entries, io.now, config, transcriptText);
      try {
        decided.warnings.push(...(await applyWrites(decided.writes)));
        return decided;
      } catch (error) {
        // The next iteration could not be counted: blocking now could loop without end.
        const message = `ralph stop-hook: could not update the loop files (${describe(error)}); letting the session stop`;
        return {
          ...decided,
          output: { systemMessage: message },
          warnings: [...decided.warnings, message],
        };
      }
    });
  } catch (error) {
    warn(io, `${describe(error)}; letting the session stop`);
    return { exitCode: 0, decision: undefined };
  }
  for (const line of decision.warnings) io.stderr.write(`${line}\n`);
  if (decision.output !== undefined) io.stdout.write(`${JSON.stringify(decision.output)}\n`);
  return { exitCode: 0, decision };
}

async function transcriptFor(
  input: StopHookInput,
  entries: Parameters<typeof needsTranscript>[1],
): Promise<string | undefined> {
  if (input.transcript_path === undefined || !needsTranscript(input, entries)) return undefined;
  return readLastAssistantText(input.transcript_path);
}

async function hookConfig(projectDir: string, io: StopHookIo): Promise<StopDecisionConfig> {
  try {
    const loaded = await loadConfig({
      homeDir: io.env.HOME ?? homedir(),
      env: io.env,
      repoRoot: projectDir,
    });
    return { backstopIterations: loaded.config.loop.backstopIterations };
  } catch (error) {
    // A broken config file must not decide whether a session can stop: use the defaults.
    warn(io, `${describe(error)}; using the default loop settings`);
    return { backstopIterations: configSchema.parse({}).loop.backstopIterations };
  }
}

function warn(io: StopHookIo, message: string): void {
  io.stderr.write(`ralph stop-hook: ${message}\n`);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
