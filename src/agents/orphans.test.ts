import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findRunProcesses,
  RUN_ID_VARIABLE,
  stopRunProcesses,
  stoppingLeftoversAfterEachSession,
} from './orphans.js';
import type { AgentAdapter, AgentRunRequest } from './types.js';

describe.runIf(existsSync('/proc/self/environ'))('processes a run left behind', () => {
  it('finds them by the run id in their environment, children included, and stops them', async () => {
    const runId = `test-${process.pid}-${Date.now()}`;
    const shell = spawn('sh', ['-c', 'sleep 30 & echo $!; wait'], {
      env: { ...process.env, [RUN_ID_VARIABLE]: runId },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const child = Number(
      await new Promise<string>((resolve) =>
        shell.stdout.once('data', (data: Buffer) => {
          resolve(data.toString().trim());
        }),
      ),
    );
    expect(findRunProcesses(runId).sort()).toEqual([shell.pid, child].sort());
    expect(findRunProcesses('another-run')).toEqual([]);
    expect(stopRunProcesses(runId).sort()).toEqual([shell.pid, child].sort());
    await new Promise((resolve) => shell.once('exit', resolve));
  });
});

describe('stoppingLeftoversAfterEachSession', () => {
  it('stops the run’s processes when each session ends, failed ones too, and keeps the rest of the agent', async () => {
    const stopped: string[] = [];
    let calls = 0;
    const agent = {
      id: 'claude',
      run: () => {
        calls += 1;
        return calls === 1 ? Promise.resolve({ ok: true }) : Promise.reject(new Error('boom'));
      },
    } as unknown as AgentAdapter;
    const wrapped = stoppingLeftoversAfterEachSession(agent, 'run-1', (id) => stopped.push(id));
    expect(wrapped.id).toBe('claude');
    expect(await wrapped.run({} as AgentRunRequest)).toEqual({ ok: true });
    expect(stopped).toEqual(['run-1']);
    await expect(wrapped.run({} as AgentRunRequest)).rejects.toThrow('boom');
    expect(stopped).toEqual(['run-1', 'run-1']);
  });
});
