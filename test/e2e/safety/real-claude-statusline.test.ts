import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import { bash, reply, scriptedSteps, usageHeaders } from '../fake-anthropic/script.js';
import { claudeEnv, gatewayToken, makeSandbox, type Sandbox } from '../real-claude/env.js';
import { runClaude } from '../real-claude/run-claude.js';

/**
 * Whether a statusLine command could feed ralph the usage windows: it cannot. Measured with the
 * REAL Claude Code CLI (pinned 2.1.330) in print mode against the fake Messages API, logged in
 * through a gateway token so the CLI reads the `anthropic-ratelimit-unified-*` headers (it then
 * prints rate_limit_event lines, and the statusline input would carry `rate_limits`). The
 * statusLine command from `--settings` never runs under `-p`, not even with `refreshInterval`
 * and a turn that lasts past it: the status line is part of the interactive terminal UI. A Stop
 * hook from the same `--settings`, running the same kind of shell command, does run, so the
 * settings were read and the command would have left its trace. ralph therefore takes the
 * windows from rate_limit_event only (src/safety/usage-windows.ts).
 */

let sandbox: Sandbox | undefined;
let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  sandbox?.cleanup();
});

/** A shell command that keeps its stdin (the JSON the CLI hands it) in `file`. */
const capture = (file: string): string => `cat > '${file}'; echo ralph-status`;

describe('the real Claude Code CLI in print mode', () => {
  it('never runs a statusLine command from --settings, while it runs a hook from the same settings', async () => {
    sandbox = makeSandbox('ralph-statusline-e2e-');
    const { repo, root } = sandbox;
    const now = Math.ceil(Date.now() / 1000);
    const headers = usageHeaders({
      fiveHour: { utilization: 0.5, resetsAt: now + 3600 },
      sevenDay: { utilization: 0.2, resetsAt: now + 3 * 86_400 },
    });
    fake = await startFakeAnthropic(
      scriptedSteps([
        // A turn that outlasts the statusLine's refreshInterval (1 s) twice over.
        { ...reply(bash('sleep 3', 'Wait a little')), headers },
        { ...reply('Done.'), headers },
      ]),
    );
    const env: Record<string, string> = {
      ...claudeEnv({ baseUrl: fake.url, root }),
      ANTHROPIC_AUTH_TOKEN: gatewayToken(),
    };
    delete env.ANTHROPIC_API_KEY;
    const statusFile = join(root, 'statusline-input.json');
    const hookFile = join(root, 'stop-hook-input.json');
    const settings = {
      statusLine: { type: 'command', command: capture(statusFile), padding: 0, refreshInterval: 1 },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: capture(hookFile) }] }] },
    };

    const run = await runClaude({
      cwd: repo,
      env,
      prompt: 'Wait a little, then say done.',
      args: ['--settings', JSON.stringify(settings)],
      timeoutMs: 30_000,
    });
    expect(fake.scriptErrors).toEqual([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toMatchObject({ subtype: 'success', is_error: false });

    // The CLI had the usage windows: it printed them as rate_limit_event lines.
    const limits = run.lines.filter((line) => line.type === 'rate_limit_event');
    expect(limits.length).toBeGreaterThanOrEqual(1);
    // The settings were read and their commands can run: the Stop hook left its input.
    expect(JSON.parse(await readFile(hookFile, 'utf8'))).toMatchObject({
      hook_event_name: 'Stop',
    });
    // The statusLine command did not run at all: no file, in the sandbox or anywhere under it.
    expect(existsSync(statusFile)).toBe(false);
    const stray = readdirSync(root, { recursive: true }).map(String);
    expect(stray.filter((name) => name.includes('statusline-input'))).toEqual([]);
  }, 60_000);
});
