import * as z from 'zod';

/**
 * The `hooks` section of config.yaml: the person's hook scripts, `DIR/hooks/<point>.sh`
 * (pre_run, post_run, pre_iteration, post_iteration, on_completion, on_error), run by
 * src/hooks/script-hooks.ts. A hook that fails or runs too long is a warning, never a stop.
 */

const fields = {
  enabled: z
    .boolean()
    .describe("Run the hook scripts in the loop directory's hooks/ folder. Default true."),
  timeoutSeconds: z
    .number()
    .min(0)
    .describe(
      'How long one hook may run before its process group is killed; 0: no limit. Default 60.',
    ),
};

export const hooksFileSchema = z
  .strictObject({
    enabled: fields.enabled.optional(),
    timeoutSeconds: fields.timeoutSeconds.optional(),
  })
  .optional()
  .describe('Hook scripts run at points of a run (DIR/hooks/<point>.sh).');

export const hooksSchema = z
  .strictObject({
    enabled: fields.enabled.default(true),
    timeoutSeconds: fields.timeoutSeconds.default(60),
  })
  .prefault({});

export type HooksSettings = z.output<typeof hooksSchema>;

export const HOOKS_REQUIREMENTS: Readonly<Record<string, string>> = {
  hooks: 'a mapping (enabled, timeoutSeconds)',
  'hooks.enabled': 'true or false',
  'hooks.timeoutSeconds': 'a number of seconds ≥ 0',
};
