import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findRunProcesses, RUN_ID_VARIABLE, stopRunProcesses } from './orphans.js';

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
