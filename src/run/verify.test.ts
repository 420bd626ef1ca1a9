import { lstat, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentRunRequest } from '../agents/types.js';
import { featureRepo, scriptedAgent, type FeatureRepo } from '../../test/agent-session-kit.js';
import { acquireLock } from '../state/lock.js';
import { verifyFeature } from './verify.js';

/** Where the prompt tells the agent to write its report. */
function reportPath(request: AgentRunRequest): string {
  const named = /- write the report to: (.+)$/m.exec(request.prompt)?.[1];
  if (named === undefined) throw new Error('the prompt names no report file');
  return resolve(request.cwd, named);
}

function reportWith(verdict: object | string): (request: AgentRunRequest) => Promise<void> {
  const body = typeof verdict === 'string' ? verdict : JSON.stringify(verdict);
  return (request) =>
    writeFile(
      reportPath(request),
      `# Verification\n\n| goal | status |\n| --- | --- |\n| save | ok |\n\n\`\`\`ralph-verdict\n${body}\n\`\`\`\n`,
    );
}

async function cleanFeature(): Promise<FeatureRepo> {
  const feature = await featureRepo();
  await feature.write(
    'src/widget.ts',
    'export function save(widget: string): string {\n  return widget;\n}\n',
  );
  feature.git('add', '.');
  feature.git('commit', '-qm', 'widget');
  return feature;
}

describe('verifyFeature', () => {
  it("VERIFIED (exit 0): the agent gets the goals, the files and the scan; the report gets ralph's check", async () => {
    const feature = await cleanFeature();
    const agent = scriptedAgent(reportWith({ status: 'VERIFIED', summary: 'all goals met' }));
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      profile: 'quality',
      agent: { adapter: agent },
    });
    expect(result).toMatchObject({
      status: 'VERIFIED',
      exitCode: 0,
      reasons: [],
      interrupted: false,
    });
    expect(result.agentVerdict).toEqual({ status: 'VERIFIED', summary: 'all goals met' });
    expect(result.reportFile).toBe(join(feature.dir, 'VERIFICATION.md'));
    const [request] = agent.requests;
    expect(request?.model).toBe('opus');
    expect(request?.cwd).toBe(feature.repo);
    expect(request?.logFile).toBe(join(feature.dir, 'logs', 'verify.jsonl'));
    expect(request?.prompt).toContain('# Goal-backward verification');
    expect(request?.prompt).toContain('- spec: .ralph/feature-widget/spec.md');
    expect(request?.prompt).toContain(
      '- write the report to: .ralph/feature-widget/VERIFICATION.md',
    );
    expect(request?.prompt).toMatch(/Changes compared with: main \(merge base [0-9a-f]{7}\)/);
    expect(request?.prompt).toContain('- src/widget.ts');
    expect(request?.prompt).toContain("ralph's stub scan found nothing.");
    const report = await readFile(result.reportFile, 'utf8');
    expect(report).toContain('| save | ok |');
    expect(report).toContain("## ralph's check");
    expect(report).toContain('**Status: VERIFIED**');
    expect(report).toContain('1 file scanned; no TODO markers');
  });

  it("VERIFIED over a stub ralph found is NEEDS_WORK (exit 1); main's own TODO and the loop directory are not the feature's", async () => {
    const feature = await cleanFeature();
    await feature.write(
      'src/store.ts',
      'export function load(): string {\n  // TODO: read the disk\n  throw new Error("not implemented");\n}\n',
    );
    await feature.write('src/empty.py', 'def flush(self):\n    pass\n');
    await feature.write('.ralph/feature-widget/notes.md', 'TODO everywhere\n');
    const agent = scriptedAgent(reportWith({ status: 'VERIFIED', summary: 'looks done' }));
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: agent },
    });
    expect(result.status).toBe('NEEDS_WORK');
    expect(result.exitCode).toBe(1);
    expect(result.reasons).toEqual([
      expect.stringContaining("ralph's scan found 3 possible stub(s)"),
    ]);
    expect(result.scan.findings.map((each) => `${each.file}:${each.line}:${each.kind}`)).toEqual([
      'src/empty.py:1:empty-body',
      'src/store.ts:2:todo',
      'src/store.ts:3:not-implemented',
    ]);
    expect(agent.requests[0]?.prompt).toContain('- src/store.ts:2 [todo] // TODO: read the disk');
    expect(agent.requests[0]?.model).toBeUndefined();
    const report = await readFile(result.reportFile, 'utf8');
    expect(report).toContain('**Status: NEEDS_WORK**');
    expect(report).toContain(
      '| `src/store.ts` | 3 | not implemented | `throw new Error("not implemented");` |',
    );
  });

  it.each([
    ['NEEDS_WORK', 1],
    ['BLOCKED', 2],
  ] as const)("the agent's %s is the status (exit %i)", async (status, exitCode) => {
    const feature = await cleanFeature();
    const agent = scriptedAgent(reportWith({ status, summary: 'see issues' }));
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: agent },
      model: 'sonnet',
      profile: 'budget',
    });
    expect(result).toMatchObject({ status, exitCode });
    expect(agent.requests[0]?.model).toBe('sonnet');
  });

  it('a garbled verdict is BLOCKED (exit 2) with the reason in the result and the report', async () => {
    const feature = await cleanFeature();
    const agent = scriptedAgent(reportWith('{"status": "DONE"}'));
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: agent },
    });
    expect(result.status).toBe('BLOCKED');
    expect(result.exitCode).toBe(2);
    expect(result.reasons).toEqual([
      expect.stringMatching(/^no verdict: the ```ralph-verdict block is not valid: status/),
    ]);
    expect(await readFile(result.reportFile, 'utf8')).toContain(
      '- no verdict: the ```ralph-verdict block is not valid',
    );
  });

  it('an old report does not count: an agent that writes nothing is BLOCKED', async () => {
    const feature = await cleanFeature();
    const old = join(feature.dir, 'VERIFICATION.md');
    await writeFile(old, '```ralph-verdict\n{"status":"VERIFIED","summary":"old"}\n```\n');
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: scriptedAgent(() => undefined) },
    });
    expect(result.status).toBe('BLOCKED');
    expect(result.reasons).toEqual(['no verdict: the agent wrote no report']);
    const report = await readFile(old, 'utf8');
    expect(report).toContain('The agent wrote no report.');
    expect(report).not.toContain('"old"');
  });

  it('a report the agent made a link to a secret is not read through: BLOCKED, the secret not copied', async () => {
    const feature = await cleanFeature();
    const secret = join(feature.repo, '..', 'id_rsa');
    await writeFile(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\n');
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: scriptedAgent((request) => symlink(secret, reportPath(request))) },
    });
    expect(result.status).toBe('BLOCKED');
    const report = await readFile(result.reportFile, 'utf8');
    expect((await lstat(result.reportFile)).isSymbolicLink()).toBe(false);
    expect(report).toContain('The agent wrote no report.');
    expect(report).not.toContain('PRIVATE KEY');
    expect(await readFile(secret, 'utf8')).toBe('-----BEGIN OPENSSH PRIVATE KEY-----\n');
  });

  it('an agent that fails is BLOCKED whatever it wrote; -o puts the report elsewhere', async () => {
    const feature = await cleanFeature();
    const agent = scriptedAgent(reportWith({ status: 'VERIFIED', summary: 'x' }), {
      timedOut: true,
    });
    const result = await verifyFeature({
      cwd: feature.repo,
      env: feature.env,
      agent: { adapter: agent },
      output: 'out/report.md',
    });
    expect(result.reportFile).toBe(join(feature.repo, 'out/report.md'));
    expect(agent.requests[0]?.prompt).toContain('- write the report to: out/report.md');
    expect(result).toMatchObject({
      status: 'BLOCKED',
      reasons: ['no verdict: the agent timed out'],
    });
  });

  it('refuses a loop that is running or missing, before any agent runs', async () => {
    const feature = await cleanFeature();
    const agent = scriptedAgent(reportWith({ status: 'VERIFIED', summary: 'x' }));
    const lock = await acquireLock(feature.dir, {
      pid: process.pid,
      command: 'ralph run',
      now: new Date(),
    });
    try {
      await expect(
        verifyFeature({ cwd: feature.repo, env: feature.env, agent: { adapter: agent } }),
      ).rejects.toMatchObject({ code: 'LOCKED' });
    } finally {
      await lock.release();
    }
    await expect(
      verifyFeature({
        cwd: feature.repo,
        env: feature.env,
        dir: 'nowhere',
        agent: { adapter: agent },
      }),
    ).rejects.toMatchObject({ code: 'LOOP_DIR_NOT_FOUND' });
    expect(agent.requests).toHaveLength(0);
    expect(
      (await verifyFeature({ cwd: feature.repo, env: feature.env, agent: { adapter: agent } }))
        .status,
    ).toBe('VERIFIED');
  });

  it('refuses an unknown option by name', async () => {
    await expect(verifyFeature({ env: {}, bogus: 1 } as never)).rejects.toThrow(
      /verifyFeature: option/,
    );
  });
});
