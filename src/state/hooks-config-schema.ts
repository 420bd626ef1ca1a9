import { flag, nonNegativeNumber, section } from './config-setting.js';
import type { Resolved } from './config-setting.js';

/**
 * The `hooks` section of config.yaml: the person's hook scripts, `DIR/hooks/<point>.sh`
 * (pre_run, post_run, pre_iteration, post_iteration, on_completion, on_error), run by
 * src/hooks/script-hooks.ts. A hook that fails or runs too long is a warning, never a stop.
 */
export const HOOKS_SETTINGS = section(
  'Hook scripts run at points of a run (DIR/hooks/<point>.sh).',
  {
    enabled: flag({
      description: "Run the hook scripts in the loop directory's hooks/ folder.",
      default: true,
    }),
    timeoutSeconds: nonNegativeNumber({
      description: 'How long one hook may run before its process group is killed.',
      zeroMeans: 'no limit',
      default: 60,
    }),
  },
);

export type HooksSettings = Resolved<typeof HOOKS_SETTINGS.section>;
