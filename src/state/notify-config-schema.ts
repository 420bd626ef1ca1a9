import * as z from 'zod';
import { flag, section, setting } from './config-setting.js';
import type { Resolved } from './config-setting.js';

/**
 * The `notify` section of config.yaml: how `ralph run` tells a person that a loop needs them
 * (complete, error, circuit breaker open, usage-limit wait, budget stop). Each channel fails
 * silently and never holds up the loop (src/monitor/reporters/notify.ts).
 */
export const NOTIFY_SETTINGS = section(
  'Notifications when a run completes, fails, or stops to wait or for good.',
  {
    webhook: setting(z.url({ protocol: /^https?$/ }), {
      description:
        'URL that gets a POST with a Slack-compatible JSON body ({"text": …}) for each notification; 5 s timeout.',
      requirement: 'an http(s) URL',
    }),
    desktop: flag({
      description:
        'Desktop notifications: notify-send on Linux, osascript on macOS, when installed.',
      default: true,
    }),
    bell: flag({
      description: 'Ring the terminal bell, when ralph runs in a terminal.',
      default: true,
    }),
  },
);

export type NotifySettings = Resolved<typeof NOTIFY_SETTINGS.section>;
