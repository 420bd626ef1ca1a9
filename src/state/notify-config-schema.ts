import * as z from 'zod';

/**
 * The `notify` section of config.yaml: how `ralph run` tells a person that a loop needs them
 * (complete, error, circuit breaker open, usage-limit wait, budget stop). Each channel fails
 * silently and never holds up the loop (src/monitor/reporters/notify.ts).
 */

const fields = {
  webhook: z
    .url({ protocol: /^https?$/ })
    .describe(
      'URL that gets a POST with a Slack-compatible JSON body ({"text": …}) for each notification; 5 s timeout. Also RALPH_NOTIFY_WEBHOOK.',
    ),
  desktop: z
    .boolean()
    .describe(
      'Desktop notifications: notify-send on Linux, osascript on macOS, when installed. Default true.',
    ),
  bell: z
    .boolean()
    .describe('Ring the terminal bell, when ralph runs in a terminal. Default true.'),
};

export const notifyFileSchema = z
  .strictObject({
    webhook: fields.webhook.optional(),
    desktop: fields.desktop.optional(),
    bell: fields.bell.optional(),
  })
  .optional()
  .describe('Notifications when a run completes, fails, or stops to wait or for good.');

export const notifySchema = z
  .strictObject({
    webhook: fields.webhook.optional(),
    desktop: fields.desktop.default(true),
    bell: fields.bell.default(true),
  })
  .prefault({});

export type NotifySettings = z.output<typeof notifySchema>;

export const NOTIFY_REQUIREMENTS: Readonly<Record<string, string>> = {
  notify: 'a mapping (webhook, desktop, bell)',
  'notify.webhook': 'an http(s) URL',
  'notify.desktop': 'true or false',
  'notify.bell': 'true or false',
};
