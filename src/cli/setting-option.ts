import { InvalidArgumentError } from '@commander-js/extra-typings';
import { settingAt, type SettingPath, type ValueAt } from '../state/config-facts.js';

/**
 * Commander pieces for options that stand for a config setting, so an option's constraints,
 * choices and default text are the setting's own (state/config-schema.ts):
 * `.option('-n, --max-iterations <n>', withDefault('most iterations in this run', 'maxIterations'),
 * parseSetting('maxIterations'))`.
 */

type NumberPath = {
  [P in SettingPath]: ValueAt<P> extends number ? P : never;
}[SettingPath];

/** Parses a number option and checks it as the setting does ("expected a whole number ≥ 1"). */
export function parseSetting(path: NumberPath): (value: string) => number {
  const setting = settingAt(path);
  return (value) => {
    const number = value.trim() === '' ? Number.NaN : Number(value);
    if (!setting.type.safeParse(number).success) {
      throw new InvalidArgumentError(
        `expected ${setting.requirement}, got ${JSON.stringify(value)}`,
      );
    }
    return number;
  };
}

export { choicesOf, withDefault } from '../state/config-facts.js';
