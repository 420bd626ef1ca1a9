import { describe, expect, it } from 'vitest';
import { codeHooks, codeHooksSchema, composeHooks, type HookRunner } from './code-hooks.js';

const never = new AbortController().signal;

describe('codeHooks', () => {
  it('calls each hook of the point in order with the variables, and says which ones threw', async () => {
    const calls: string[] = [];
    const hooks = codeHooks(
      {
        post_iteration: [
          (variables, { point }) => {
            calls.push(`first ${point} ${variables.RALPH_ITERATION ?? ''}`);
          },
          function notify() {
            throw new Error('webhook down');
          },
          async (variables) => {
            await new Promise((resolve) => setTimeout(resolve, 10));
            calls.push(`third ${variables.RALPH_ITERATION ?? ''}`);
          },
        ],
        on_error: () => Promise.reject(new TypeError('bad')),
      },
      { timeoutMs: 5000 },
    );
    const problem = await hooks.run('post_iteration', { RALPH_ITERATION: '3' }, false, never);
    expect(problem).toBe('code hook 2 (notify): threw Error: webhook down');
    expect(calls).toEqual(['first post_iteration 3', 'third 3']);
    expect(await hooks.run('on_error', {}, false, never)).toMatch(
      /^code hook 1.*threw TypeError: bad$/,
    );
    expect(await hooks.run('pre_run', {}, false, never)).toBeUndefined();
  });

  it('stops waiting for a hook past hooks.timeoutSeconds and aborts its signal', async () => {
    let aborted = false;
    const hooks = codeHooks(
      {
        pre_run: (_variables, { signal }) =>
          new Promise<void>(() => {
            signal.addEventListener('abort', () => {
              aborted = true;
            });
          }),
      },
      { timeoutMs: 100 },
    );
    expect(await hooks.run('pre_run', {}, false, never)).toBe(
      'code hook 1 (pre_run): still running after 0.1 s (hooks.timeoutSeconds); not waited for',
    );
    expect(aborted).toBe(true);
  });

  it('gives a hook a moment once the run is interrupted', async () => {
    const hooks = codeHooks(
      { post_run: () => new Promise<void>(() => undefined) },
      {
        timeoutMs: 0,
        urgentMs: 50,
      },
    );
    const controller = new AbortController();
    controller.abort();
    expect(await hooks.run('post_run', {}, false, controller.signal)).toMatch(
      /still running 0.05 s after the run was interrupted/,
    );
  });
});

describe('composeHooks', () => {
  it('runs code hooks, then scripts, and joins their problems', async () => {
    const order: string[] = [];
    const runner = (name: string, problem?: string): HookRunner => ({
      run: () => {
        order.push(name);
        return Promise.resolve(problem);
      },
    });
    const both = composeHooks(runner('code', 'a failed'), undefined, runner('scripts', 'b failed'));
    expect(await both?.run('pre_run', {}, false, never)).toBe('a failed; b failed');
    expect(order).toEqual(['code', 'scripts']);
    expect(composeHooks(undefined, undefined)).toBeUndefined();
  });
});

describe('codeHooksSchema', () => {
  it('takes a function or a list per known point and refuses anything else', () => {
    const fn = (): void => undefined;
    expect(codeHooksSchema.safeParse({ pre_run: fn, post_run: [fn, fn] }).success).toBe(true);
    expect(codeHooksSchema.safeParse({ pre_run: 'echo hi' }).success).toBe(false);
    expect(codeHooksSchema.safeParse({ 'pre-run': fn }).success).toBe(false);
  });
});
