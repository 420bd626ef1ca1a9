import type { UsageLimitAction } from '../../safety/settings.js';
import type { ConfigFile } from '../../state/config-schema.js';

/** `ralph run` flags for the safety policies (issue 4); each is also a configuration key. */
export interface SafetyFlags {
  idleTimeoutMinutes: number | undefined;
  maxCostUsd: number | undefined;
  usageLimitAction: UsageLimitAction | undefined;
  callsPerHour: number | undefined;
}

/** The config layer the safety flags stand for (flags win over every other source). */
export function safetyFlagsToConfig(flags: SafetyFlags): ConfigFile {
  const layer: ConfigFile = {};
  if (flags.idleTimeoutMinutes !== undefined) layer.idleTimeoutMinutes = flags.idleTimeoutMinutes;
  if (flags.maxCostUsd !== undefined) layer.budget = { maxCostUsd: flags.maxCostUsd };
  if (flags.usageLimitAction !== undefined) {
    layer.usageLimit = { action: flags.usageLimitAction };
  }
  if (flags.callsPerHour !== undefined) layer.rateLimit = { callsPerHour: flags.callsPerHour };
  return layer;
}

/** The resolved configuration in the units the policies work in (moved to the safety layer). */
export { safetySettingsFrom } from '../../safety/settings.js';
