import { describe, expect, it } from 'vitest';
import { systemClock } from './clock.js';

describe('systemClock.sleep', () => {
  it('waits out a delay beyond setTimeout’s limit instead of firing at once, until aborted', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on('warning', onWarning);
    const controller = new AbortController();
    let resolved = false;
    const sleeping = systemClock.sleep(2 ** 31 + 5_000, controller.signal).then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(resolved).toBe(false);
    controller.abort();
    await sleeping;
    expect(resolved).toBe(true);
    process.off('warning', onWarning);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('resolves at once for no delay or an aborted signal', async () => {
    const started = Date.now();
    await systemClock.sleep(0);
    await systemClock.sleep(60_000, AbortSignal.abort());
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
