import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeToolCall } from '../decide.js';
import { resolvePolicy } from '../policy.js';
import { loadShellParser } from './parse.js';

/** Scripts the guard reads before they run; the table (test/fixtures/guard/tool-call-table.ts) has the main cases. */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-scripts-')));
const project = join(root, 'project');
const home = join(root, 'home');
mkdirSync(join(project, 'bin'), { recursive: true });
mkdirSync(home);
beforeAll(() => loadShellParser());
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
const policy = resolvePolicy({ projectRoot: project, homeDir: home, unattended: true });
const bash = (command: string) =>
  judgeToolCall({ toolName: 'Bash', toolInput: { command }, cwd: project }, policy);
const file = (name: string, text: string | Buffer) => {
  writeFileSync(join(project, name), text, { mode: 0o755 });
};

describe('shell scripts run from files', () => {
  it('reads a script whose #! line goes through env with options', () => {
    file('bin/env-s', '#!/usr/bin/env -S bash -e\nrm -rf ~/work\n');
    expect(bash('bin/env-s')).toMatchObject({ decision: 'deny', rule: 'outside-project' });
  });

  it('leaves programs in other languages and binaries alone, as any program', () => {
    file('bin/tool.js', '#!/usr/bin/env node\nrequire("child_process").execSync("rm -rf ~");\n');
    file('bin/native', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0, 0x72, 0x6d]));
    expect(bash('bin/tool.js').decision).toBe('allow');
    expect(bash('./bin/native').decision).toBe('allow');
  });

  it('judges a script that runs itself once, not until the depth limit', () => {
    file('bin/again.sh', '#!/bin/sh\necho once\nbash bin/again.sh\n');
    file('package.json', JSON.stringify({ scripts: { lint: 'pnpm -w run lint' } }));
    expect(bash('bash bin/again.sh')).toMatchObject({ decision: 'allow' });
    expect(bash('pnpm lint')).toMatchObject({ decision: 'allow' });
  });

  it('refuses a script that does not parse, naming it', () => {
    file('bin/broken.sh', '#!/bin/bash\nif then fi (\n');
    const verdict = bash('bash bin/broken.sh');
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'parse-error' });
    expect(verdict.reason).toContain('script bin/broken.sh (run by `bash bin/broken.sh`)');
  });

  it('reads the script as it is when the call is made', () => {
    file('bin/later.sh', '#!/bin/sh\necho fine\n');
    expect(bash('sh bin/later.sh').decision).toBe('allow');
    file('bin/later.sh', '#!/bin/sh\ncat ~/.ssh/id_rsa\n');
    expect(bash('sh bin/later.sh')).toMatchObject({ decision: 'deny', rule: 'sensitive-file' });
  });

  it('does not follow a package.json that is not valid JSON (npm refuses to run it)', () => {
    file('package.json', '{ "scripts": { "test": "rm -rf ~" ');
    expect(bash('npm test').decision).toBe('allow');
  });
});
