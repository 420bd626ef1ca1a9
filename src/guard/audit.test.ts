import { mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit, readAudit, type AuditEntry } from './audit.js';

const entry: AuditEntry = {
  at: '2026-11-23T00:00:00.000Z',
  sessionId: 's1',
  tool: 'Bash',
  input: 'ls',
  decision: 'allow',
  rule: 'default',
  reason: 'ordinary command',
  ms: 0.1,
};

describe('appendAudit', () => {
  it('appends one JSON line per decision, creating the logs folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-audit-'));
    const file = join(dir, 'logs', 'audit.jsonl');
    appendAudit(file, entry);
    appendAudit(file, { ...entry, tool: 'Read' });
    expect((await readAudit(file)).map((each) => each.tool)).toEqual(['Bash', 'Read']);
  });

  it('refuses an audit log the agent swapped for a link, leaving the victim intact', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-audit-'));
    const victim = join(await mkdtemp(join(tmpdir(), 'ralph-victim-')), '.bashrc');
    await writeFile(victim, 'alias ls=ls\n');
    const file = join(dir, 'audit.jsonl');
    await symlink(victim, file);
    expect(() => {
      appendAudit(file, entry);
    }).toThrow(`ralph refused to use ${file}: it is a symbolic link`);
    expect(await readFile(victim, 'utf8')).toBe('alias ls=ls\n');
  });
});
