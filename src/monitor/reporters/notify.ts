import { runToCompletion } from '../../agents/spawn.js';
import type { LoopEvent, Reporter } from '../../core/events.js';
import { clockTime, money } from '../view/describe.js';

/**
 * Tells a person when a loop needs them: it completed, failed, opened its circuit breaker, is
 * waiting out a usage limit, or stopped on its budget or iteration limit. Three channels, each
 * optional: a desktop notification (notify-send on Linux, osascript on macOS, skipped silently
 * when absent), the terminal bell, and a webhook with a Slack-compatible body. Sends run in
 * the background with a short timeout, so a slow or dead endpoint never holds up the loop or
 * fails it; `close()` (after run_finished) gives the last ones that timeout to get out.
 */

export interface Notification {
  /** What happened, for de-duplication and for the webhook's machine-readable part. */
  kind: 'complete' | 'error' | 'breaker_open' | 'usage_limit' | 'budget' | 'limit_reached';
  title: string;
  body: string;
}

export interface NotifyOptions {
  feature: string;
  loopDir: string;
  desktop: boolean;
  bell: boolean;
  webhook?: string | undefined;
  platform?: NodeJS.Platform;
  /** The desktop notifier's environment (DISPLAY, DBUS_SESSION_BUS_ADDRESS); Node's default when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Test seams: the process runner, fetch, and the terminal (undefined: not a terminal). */
  run?: (command: string, args: string[]) => Promise<void>;
  fetch?: typeof fetch;
  terminal?: { write(text: string): unknown } | undefined;
  timeoutMs?: number;
  /** Told when a channel fails (the run's stderr); never throws into the loop. */
  warn?: (message: string) => void;
}

export function notificationFor(
  event: LoopEvent,
  sent: ReadonlySet<string>,
): Notification | undefined {
  switch (event.type) {
    case 'breaker_changed':
      return event.to === 'OPEN'
        ? { kind: 'breaker_open', title: 'circuit breaker open', body: event.reason }
        : undefined;
    case 'wait_started':
      return event.reason === 'usage_limit'
        ? {
            kind: 'usage_limit',
            title: 'waiting for the usage limit',
            body: `resumes at ${clockTime(event.until)}: ${event.detail}`,
          }
        : undefined;
    case 'budget_exceeded':
      return { kind: 'budget', title: 'budget reached: run stopped', body: event.message };
    case 'run_finished': {
      const summary = `${event.reason} — ${event.storiesPassing}/${event.storiesTotal} stories passing after ${event.iterations} iteration${event.iterations === 1 ? '' : 's'}, ${money(event.costUsd)}`;
      if (event.state === 'COMPLETE') return { kind: 'complete', title: 'complete', body: summary };
      // The event that caused these endings was notified already.
      if (event.stopReason === 'breaker' && sent.has('breaker_open')) return undefined;
      if (event.stopReason === 'budget' && sent.has('budget')) return undefined;
      if (event.stopReason === 'breaker')
        return { kind: 'breaker_open', title: 'circuit breaker open', body: summary };
      if (event.stopReason === 'budget')
        return { kind: 'budget', title: 'budget reached', body: summary };
      if (event.state === 'ERROR')
        return { kind: 'error', title: 'stopped with an error', body: summary };
      if (event.state === 'REACHED_LIMIT')
        return { kind: 'limit_reached', title: 'iteration limit reached', body: summary };
      if (event.stopReason === 'usage_limit')
        return { kind: 'usage_limit', title: 'stopped at the usage limit', body: summary };
      return undefined; // PAUSED by the person themselves
    }
    default:
      return undefined;
  }
}

export function notifyReporter(options: NotifyOptions): Reporter {
  const timeoutMs = options.timeoutMs ?? 5000;
  const run = options.run ?? runQuietly(timeoutMs, options.env);
  const doFetch = options.fetch ?? fetch;
  const platform = options.platform ?? process.platform;
  const desktop = options.desktop && hasDesktopSession(platform, options.env);
  const pending = new Set<Promise<void>>();
  const sent = new Set<string>();
  const warn = (message: string): void => {
    options.warn?.(message);
  };
  const track = (work: Promise<void>): void => {
    const settled = work.catch(() => undefined);
    pending.add(settled);
    void settled.then(() => pending.delete(settled));
  };

  const send = (note: Notification): void => {
    const title = `ralph: ${options.feature}: ${note.title}`;
    if (options.bell && options.terminal !== undefined) options.terminal.write('\u0007');
    if (desktop) {
      const command = desktopCommand(platform, title, note.body);
      // Not installed (ENOENT) or no desktop session: skipped silently, as promised.
      if (command !== undefined) track(run(command.command, command.args));
    }
    if (options.webhook !== undefined) {
      const body = JSON.stringify({
        text: `*${title}*\n${note.body}`,
        ralph: { event: note.kind, feature: options.feature, loopDir: options.loopDir },
      });
      track(
        doFetch(options.webhook, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        }).then(
          async (response) => {
            await response.body?.cancel();
            if (!response.ok) warn(`notification webhook answered ${response.status}`);
          },
          (error: unknown) => {
            warn(
              `notification webhook failed: ${error instanceof Error ? error.message : String(error)}`,
            );
          },
        ),
      );
    }
  };

  return {
    onEvent(event: LoopEvent) {
      const note = notificationFor(event, sent);
      if (note === undefined) return;
      sent.add(note.kind);
      send(note);
    },
    async close() {
      await Promise.all(pending);
    },
  };
}

export function desktopCommand(
  platform: NodeJS.Platform,
  title: string,
  body: string,
): { command: string; args: string[] } | undefined {
  if (platform === 'darwin') {
    // AppleScript string literals: backslash and double quote escaped, nothing else special.
    const quote = (text: string): string => `"${text.replace(/[\\"]/g, '\\$&')}"`;
    return {
      command: 'osascript',
      args: ['-e', `display notification ${quote(body)} with title ${quote(title)}`],
    };
  }
  if (platform === 'linux' || platform === 'freebsd' || platform === 'openbsd') {
    return { command: 'notify-send', args: ['--app-name=ralph', title, body] };
  }
  return undefined;
}

/**
 * Whether a desktop notifier could reach anyone: on Linux and the BSDs notify-send needs a
 * graphical session or a session bus, which a terminal inside one sees in its environment. Without
 * any (ssh, CI, a container) the spawn would only fail, at a cost to every run's end. macOS needs
 * none of these; without `env` (the process's own) there is nothing to judge, so it is tried.
 */
export function hasDesktopSession(platform: NodeJS.Platform, env: NotifyOptions['env']): boolean {
  if (platform === 'darwin' || env === undefined) return true;
  return ['DISPLAY', 'WAYLAND_DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'].some(
    (name) => (env[name] ?? '') !== '',
  );
}

/** Runs the desktop notifier, whatever its outcome: a missing or failing one is no error. */
function runQuietly(
  timeoutMs: number,
  env: NotifyOptions['env'],
): (command: string, args: string[]) => Promise<void> {
  return async (command, args) => {
    await runToCompletion(command, args, { timeoutMs, env, maxBuffer: 64 * 1024 });
  };
}
