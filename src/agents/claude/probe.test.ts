import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createClaudeProbe } from './probe.js';

/** A fake `claude` that runs `body` as a shell script (mode 0o755 unless told). */
function fakeClaude(body: string, mode = 0o755): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ralph-probe-')), 'claude');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, mode);
  return file;
}

const probe = (command: string) => createClaudeProbe(command, process.env).probe();

describe('createClaudeProbe', () => {
  it('reads the version a working claude prints', async () => {
    const command = fakeClaude('echo "2.1.330 (Claude Code)"');
    expect(await probe(command)).toEqual({
      agent: 'claude',
      command,
      found: true,
      version: '2.1.330',
      problem: undefined,
    });
  });

  it('tells a missing executable from one that cannot be started or fails', async () => {
    expect(await probe('/nonexistent/claude')).toMatchObject({
      found: false,
      problem: '/nonexistent/claude not found',
    });
    const notExecutable = fakeClaude('echo 1.0.0', 0o644);
    expect(await probe(notExecutable)).toMatchObject({
      found: false,
      problem: `${notExecutable} could not be started (EACCES)`,
    });
    const failing = fakeClaude('echo "bad install" >&2; exit 2');
    expect(await probe(failing)).toMatchObject({
      found: true,
      version: undefined,
      problem: `${failing} --version exited 2: bad install`,
    });
  });
});
