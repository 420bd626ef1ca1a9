import { RalphError, type SourceLocation } from '../util/errors.js';

/**
 * What config.ts and config-yaml.ts share: one way to report bad settings, and the small helpers
 * both walk settings with. Apart so the YAML parser loads only when a config file exists.
 */

export type Settings = Record<string, unknown>;

export interface Problem {
  problem: string;
  hint: string;
  /** `file:line:column`, `environment variable X` or `option --x`. */
  where: string;
  location?: SourceLocation;
}

export function configError(problems: Problem[]): RalphError {
  const [first, ...rest] = problems;
  if (first === undefined) return new RalphError('INVALID_CONFIG', 'invalid configuration');
  const more = rest.map((p) => `\n  ${p.where}: ${p.problem}`).join('');
  return new RalphError('INVALID_CONFIG', `${first.where}: ${first.problem}${more}`, {
    hint: first.hint,
    ...(first.location === undefined ? {} : { location: first.location }),
  });
}

export function getIn(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

export function withoutNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value).map(([key, child]) => [key, withoutNulls(child)] as const);
  return Object.fromEntries(entries.filter(([, child]) => child !== undefined));
}

export function isPlainObject(value: unknown): value is Settings {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
