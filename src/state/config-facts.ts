import type * as z from 'zod';
import { CONFIG_KEYS, type CONFIG_TABLE, type ConfigFile } from './config-schema.js';
import { defaultTextOf, type Section, type Setting, type Table } from './config-setting.js';

/**
 * Facts about one setting, by its dotted path, for code that states them elsewhere: the CLI's
 * option choices and "(default N)" texts, a default applied outside the config schema.
 */

type Leaves<T extends Table, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends Section<infer C>
    ? Leaves<C, `${Prefix}${K}.`>
    : `${Prefix}${K}`;
}[keyof T & string];

/** Every setting's dotted path: `maxIterations`, `agents.claude.command`, … */
export type SettingPath = Leaves<typeof CONFIG_TABLE>;

type At<T, P extends string> = P extends `${infer Head}.${infer Rest}`
  ? Head extends keyof T
    ? T[Head] extends Section<infer C>
      ? At<C, Rest>
      : never
    : never
  : P extends keyof T
    ? T[P]
    : never;

export type SettingAt<P extends SettingPath> = At<typeof CONFIG_TABLE, P>;

/** The paths of settings with a fixed set of values (`profile`, `usageLimit.action`, …). */
export type ChoicePath = {
  [P in SettingPath]: SettingAt<P> extends Setting<z.ZodEnum> ? P : never;
}[SettingPath];

type ChoicesAt<P extends ChoicePath> =
  SettingAt<P> extends Setting<z.ZodEnum<infer E>> ? readonly E[keyof E][] : never;

export function settingAt<P extends SettingPath>(path: P): SettingAt<P> {
  const key = CONFIG_KEYS.find((each) => each.path === path);
  // SettingPath is derived from the same table CONFIG_KEYS walks, so every path is there.
  if (key === undefined) throw new Error(`unknown setting ${path}`);
  return key.setting as SettingAt<P>;
}

/** The default value, e.g. `defaultOf('maxIterations')` → 20. */
export function defaultOf<P extends SettingPath>(
  path: P,
): SettingAt<P> extends { default: infer D } ? D : undefined {
  return (settingAt(path) as Setting).default as SettingAt<P> extends { default: infer D }
    ? D
    : undefined;
}

/** The allowed values, in order, for commander's `.choices()`: `choicesOf('profile')`. */
export function choicesOf<P extends ChoicePath>(path: P): ChoicesAt<P> {
  return (settingAt(path) as Setting<z.ZodEnum>).type.options as unknown as ChoicesAt<P>;
}

/**
 * The default as help texts say it, with what 0 means where that matters:
 * `20`, `5; 0: off`, `wait`, `: no limit`.
 */
export function defaultHelpOf(path: SettingPath): string {
  const entry: Setting = settingAt(path);
  const zero = entry.zeroMeans === undefined ? '' : `; 0: ${entry.zeroMeans}`;
  const said =
    entry.defaultText === undefined ? ` ${defaultTextOf(entry)}` : `: ${entry.defaultText}`;
  return `default${said}${zero}`;
}

/** A CLI option's help with its config default: `withDefault('most iterations', 'maxIterations')`
 * → "most iterations (default 20)". */
export function withDefault(help: string, path: SettingPath): string {
  return `${help} (${defaultHelpOf(path)})`;
}

/** The value a setting takes in one layer (a file, the environment, the flags). */
export type ValueAt<P extends SettingPath> = z.input<SettingAt<P>['type']>;

/**
 * A config layer from values by dotted path, for flags that stand for settings:
 * `configLayerOf({ maxIterations: 5, 'budget.maxCostUsd': 2 })` →
 * `{ maxIterations: 5, budget: { maxCostUsd: 2 } }`. Undefined values are left out, so
 * options the user did not give do not override the other sources.
 */
export function configLayerOf(values: { [P in SettingPath]?: ValueAt<P> | undefined }): ConfigFile {
  const layer: Record<string, unknown> = {};
  for (const [path, value] of Object.entries(values) as [string, unknown][]) {
    if (value === undefined) continue;
    const segments = path.split('.');
    const last = segments.pop() ?? path;
    let target = layer;
    for (const segment of segments) {
      const child = (target[segment] ??= {}) as Record<string, unknown>;
      target = child;
    }
    target[last] = value;
  }
  // Each value was typed by its path above; the nesting is what ConfigFile spells out.
  return layer;
}
