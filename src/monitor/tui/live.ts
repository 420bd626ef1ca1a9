import { useApp, useInput, useStdin, useStdout } from 'ink';
import { createElement as h, useEffect, useState, type ReactNode } from 'react';
import { followEvents } from '../event-stream.js';
import { watchLiveness, withLiveness } from '../liveness.js';
import { initialView, reduceAll } from '../view/reducer.js';
import { MonitorApp } from './app.js';

export interface LiveMonitorProps {
  loopDir: string;
  name: string;
  color: boolean;
  /** Test seam for the clock of countdowns and elapsed times. */
  clock?: () => number;
  pollMs?: number;
}

/**
 * The monitor, live: follows events.jsonl (fs.watch, so a new event shows within
 * milliseconds), re-renders once a second for the clocks, and redraws on terminal resize.
 */
export function LiveMonitor(props: LiveMonitorProps): ReactNode {
  const clock = props.clock ?? Date.now;
  const [view, setView] = useState(initialView);
  const [now, setNow] = useState(clock);
  const [alive, setAlive] = useState(true);
  const { exit } = useApp();
  const { stdout } = useStdout();
  const { isRawModeSupported } = useStdin();
  const sizeOf = () => ({ width: stdout.columns || 80, height: (stdout.rows || 24) - 1 });
  const [size, setSize] = useState(sizeOf);

  useEffect(() => {
    const controller = new AbortController();
    followEvents(props.loopDir, {
      signal: controller.signal,
      ...(props.pollMs === undefined ? {} : { pollMs: props.pollMs }),
      onEvents: (events) => {
        setView((current) => reduceAll(current, events));
        setNow(clock());
      },
    }).catch((error: unknown) => {
      // events.jsonl became unreadable: end with the reason rather than show a frozen screen.
      exit(error instanceof Error ? error : new Error(String(error)));
    });
    return () => {
      controller.abort();
    };
  }, [props.loopDir]);

  useEffect(() => watchLiveness(props.loopDir, setAlive), [props.loopDir]);

  useEffect(() => {
    const timer = setInterval(() => {
      setNow(clock());
    }, 1000);
    return () => {
      clearInterval(timer);
    };
  }, []);

  useEffect(() => {
    const onResize = (): void => {
      setSize(sizeOf());
    };
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  // Keys need a terminal on stdin; without one, Ctrl+C (SIGINT) still ends the monitor.
  useInput(
    (input) => {
      if (input === 'q') exit();
    },
    { isActive: isRawModeSupported },
  );

  return h(MonitorApp, {
    view: withLiveness(view, alive),
    now,
    color: props.color,
    name: props.name,
    ...size,
  });
}
