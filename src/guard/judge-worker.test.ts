import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { startJudgeWorker } from './judge-worker.js';
import { resolvePolicy } from './policy.js';

/**
 * The worker host's guarantees with workers that misbehave on purpose (data: URL scripts): an
 * answer within the budget whatever the worker does, and a failure reported when none can start.
 */

const policy = resolvePolicy({ projectRoot: '/tmp', homeDir: '/root', unattended: true });
const script = (code: string) => new URL(`data:text/javascript,${encodeURIComponent(code)}`);
const call = { toolName: 'Bash', toolInput: { command: 'ls' }, cwd: '/tmp' };

describe('the judge worker', () => {
  it('denies a call its worker never answers, within the budget, and starts a fresh worker', async () => {
    const failures: Error[] = [];
    const judge = startJudgeWorker({
      policy,
      budgetMs: 100,
      workerUrl: script(
        `import { parentPort } from 'node:worker_threads';
         parentPort.postMessage({ type: 'ready' });
         parentPort.on('message', () => { for (;;) {} });`,
      ),
      onFailure: (error) => failures.push(error),
    });
    // Let the worker report ready: the budget alone counts then.
    await new Promise((resolve) => setTimeout(resolve, 300));
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);
    const started = performance.now();
    const verdict = await judge.judge(call);
    const elapsed = performance.now() - started;
    clearInterval(ticker);
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'over-budget' });
    expect(elapsed).toBeLessThan(1000);
    expect(ticks).toBeGreaterThan(3); // ralph's event loop kept running meanwhile
    expect(judge.started()).toBe(2);
    expect(failures).toEqual([]);
    await judge.close();
  });

  it('reports a worker that cannot start, and denies what waited for it', async () => {
    const failures: Error[] = [];
    const judge = startJudgeWorker({
      policy,
      workerUrl: script(
        `import { parentPort } from 'node:worker_threads';
         parentPort.postMessage({ type: 'failed', message: 'no grammar' });`,
      ),
      onFailure: (error) => failures.push(error),
    });
    const verdict = await judge.judge(call);
    expect(verdict.decision).toBe('deny');
    expect(failures.map((error) => error.message)).toEqual(['the guard cannot start: no grammar']);
    // Later calls are refused at once, not after the start allowance.
    expect((await judge.judge(call)).reason).toMatch(/cannot judge calls/);
    await judge.close();
  });
});
