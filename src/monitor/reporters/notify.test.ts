import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../core/events.js';
import { desktopCommand, hasDesktopSession, notificationFor, notifyReporter } from './notify.js';

const at = '2026-11-22T10:00:00.000Z';
const finished = (extra: Partial<Extract<LoopEvent, { type: 'run_finished' }>>): LoopEvent => ({
  type: 'run_finished',
  at,
  state: 'COMPLETE',
  reason: 'every story passes',
  exitCode: 0,
  iterations: 3,
  storiesPassing: 2,
  storiesTotal: 2,
  costUsd: 0.5,
  ...extra,
});
const breakerOpen: LoopEvent = {
  type: 'breaker_changed',
  at,
  from: 'CLOSED',
  to: 'OPEN',
  reason: '3 iterations without progress',
  breaker: {
    state: 'OPEN',
    noProgress: 3,
    sameError: 0,
    permissionDenials: 0,
    thresholds: { noProgress: 3, sameError: 5, permissionDenials: 2 },
    reason: '3 iterations without progress',
    cooldownUntil: undefined,
  },
};

const CASES: [LoopEvent, string | undefined][] = [
  [finished({}), 'complete'],
  [
    finished({ state: 'ERROR', reason: 'not logged in', stopReason: 'fatal', exitCode: 2 }),
    'error',
  ],
  [
    finished({ state: 'REACHED_LIMIT', stopReason: 'max_iterations', exitCode: 1 }),
    'limit_reached',
  ],
  [finished({ state: 'ERROR', stopReason: 'budget', exitCode: 1 }), 'budget'],
  [finished({ state: 'PAUSED', stopReason: 'usage_limit', exitCode: 2 }), 'usage_limit'],
  [
    finished({
      state: 'PAUSED',
      reason: 'interrupted',
      stopReason: 'interrupted',
      exitCode: 130,
    }),
    undefined,
  ],
  [breakerOpen, 'breaker_open'],
  [{ ...breakerOpen, to: 'HALF_OPEN' as const }, undefined],
  [
    {
      type: 'wait_started',
      at,
      reason: 'usage_limit',
      until: at,
      durationMs: 1000,
      detail: 'limit',
    },
    'usage_limit',
  ],
  [
    {
      type: 'wait_started',
      at,
      reason: 'retry',
      until: at,
      durationMs: 1000,
      detail: '529',
    },
    undefined,
  ],
  [
    {
      type: 'budget_exceeded',
      at,
      scope: 'run',
      storyId: undefined,
      spentUsd: 5.1,
      limitUsd: 5,
      message: '$5.10 of $5',
    },
    'budget',
  ],
  [{ type: 'warning', at, message: 'x' }, undefined],
];

describe('notificationFor', () => {
  it.each(CASES)('%#: %s', (event, kind) => {
    expect(notificationFor(event, new Set())?.kind).toBe(kind);
  });

  it('does not notify twice for a breaker or budget stop', () => {
    expect(
      notificationFor(
        finished({ state: 'ERROR', stopReason: 'breaker' }),
        new Set(['breaker_open']),
      ),
    ).toBeUndefined();
    expect(
      notificationFor(finished({ state: 'ERROR', stopReason: 'budget' }), new Set(['budget'])),
    ).toBeUndefined();
  });
});

describe('notifyReporter', () => {
  it('rings the bell, runs the desktop command and posts a Slack-compatible webhook', async () => {
    const bodies: unknown[] = [];
    const server = createServer((request: IncomingMessage, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        bodies.push(JSON.parse(text));
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const commands: string[][] = [];
    let rung = '';
    const reporter = notifyReporter({
      feature: 'feature/x',
      loopDir: '/repo/.ralph/feature-x',
      desktop: true,
      bell: true,
      webhook: `http://127.0.0.1:${port}/hook`,
      platform: 'linux',
      run: (command, args) => {
        commands.push([command, ...args]);
        return Promise.resolve();
      },
      terminal: { write: (text: string) => (rung += text) },
    });
    await reporter.onEvent(finished({}));
    await reporter.close?.();
    server.close();
    expect(rung).toBe('\u0007');
    expect(commands).toEqual([
      [
        'notify-send',
        '--app-name=ralph',
        'ralph: feature/x: complete',
        'every story passes — 2/2 stories passing after 3 iterations, $0.5000',
      ],
    ]);
    expect(bodies).toEqual([
      {
        text: '*ralph: feature/x: complete*\nevery story passes — 2/2 stories passing after 3 iterations, $0.5000',
        ralph: { event: 'complete', feature: 'feature/x', loopDir: '/repo/.ralph/feature-x' },
      },
    ]);
  });

  it('never blocks or fails the loop: a hanging webhook times out, a missing command is skipped', async () => {
    const warnings: string[] = [];
    const hanging = createServer(() => undefined); // accepts and never answers
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const port = (hanging.address() as AddressInfo).port;
    const reporter = notifyReporter({
      feature: 'f',
      loopDir: '/l',
      desktop: true,
      bell: false,
      webhook: `http://127.0.0.1:${port}/`,
      platform: 'linux',
      timeoutMs: 200,
      warn: (message) => warnings.push(message),
    });
    const started = Date.now();
    const returned = reporter.onEvent(breakerOpen);
    expect(returned).toBeUndefined(); // nothing for the loop to wait on
    await reporter.close?.();
    // The 200 ms webhook timeout ends the wait; without it close() would hang with the server.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(warnings.join('\n')).toContain('notification webhook failed');
    hanging.closeAllConnections();
    hanging.close();
  });

  it('builds the desktop command per platform, quoting for AppleScript', () => {
    expect(desktopCommand('darwin', 'ralph: "x"', 'a\\b')).toEqual({
      command: 'osascript',
      args: ['-e', 'display notification "a\\\\b" with title "ralph: \\"x\\""'],
    });
    expect(desktopCommand('win32', 't', 'b')).toBeUndefined();
  });

  it('skips the desktop notifier on Linux without a session to show it in, never on macOS', async () => {
    const commands: string[] = [];
    const reporter = notifyReporter({
      feature: 'f',
      loopDir: '/l',
      desktop: true,
      bell: false,
      platform: 'linux',
      env: { PATH: '/usr/bin', HOME: '/home/me' },
      run: (command) => {
        commands.push(command);
        return Promise.resolve();
      },
    });
    await reporter.onEvent(finished({}));
    await reporter.close?.();
    expect(commands).toEqual([]);
    expect(hasDesktopSession('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDesktopSession('linux', { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/b' })).toBe(true);
    expect(hasDesktopSession('linux', { DISPLAY: '' })).toBe(false);
    expect(hasDesktopSession('darwin', {})).toBe(true);
    expect(hasDesktopSession('linux', undefined)).toBe(true);
  });
});
