import { render, renderToString } from 'ink';
import { createElement as h } from 'react';
import { readEvents } from '../../state/events-log.js';
import { readLock } from '../../state/lock.js';
import { withLiveness } from '../liveness.js';
import { parseEvent } from '../events.js';
import { initialView, reduceView } from '../view/reducer.js';
import { MonitorApp } from './app.js';
import { LiveMonitor } from './live.js';

/**
 * The entry point of `ralph monitor` (terminal). The CLI reaches it only through a dynamic
 * import, so ink and React load for this command alone (design.md §1).
 */
export interface TuiOptions {
  loopDir: string;
  name: string;
  color: boolean;
  /** Print one frame of the current state to `write` and return (scripts, tests, a look). */
  once: boolean;
  write: (text: string) => void;
  /** The terminal the live view takes over. */
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
}

export async function runMonitorTui(options: TuiOptions): Promise<void> {
  if (options.once) {
    let view = initialView();
    let seq = 0;
    for (const value of await readEvents(options.loopDir)) {
      seq += 1;
      const event = parseEvent(value);
      if (event !== undefined) view = reduceView(view, event, seq);
    }
    const lock = await readLock(options.loopDir).catch(() => undefined);
    view = withLiveness(view, lock?.alive === true);
    // Not a terminal (a pipe, a file): the classic 80 columns.
    const width = options.stdout.isTTY ? options.stdout.columns : 80;
    const frame = renderToString(
      h(MonitorApp, {
        view,
        now: Date.now(),
        width,
        height: 24,
        color: options.color,
        name: options.name,
      }),
      { columns: width },
    );
    options.write(`${frame}\n`);
    return;
  }
  const instance = render(
    h(LiveMonitor, { loopDir: options.loopDir, name: options.name, color: options.color }),
    {
      stdout: options.stdout,
      stdin: options.stdin,
      exitOnCtrlC: true,
      patchConsole: false,
    },
  );
  await instance.waitUntilExit();
}
