import { RalphError } from '../util/errors.js';
import { isPlainObject, type Settings } from './config-problems.js';

/**
 * The one place that maps the Ralph Hybrid spec's config.yaml keys onto ralph's own, so that a
 * ralph-hybrid user's `~/.ralph-hybrid/config.yaml` and `.ralph-hybrid/config.yaml` (or these keys
 * in ralph's own files) work unchanged. `ralph validate` lists what was mapped. A key of a
 * ralph-hybrid section that ralph has no equivalent for is named, never silently dropped.
 */

export interface HybridMapping {
  file: string;
  from: string;
  to: string;
}

interface Target {
  to: string;
  /** How the value changes shape, where ralph's key holds it differently. */
  convert?: (value: unknown) => unknown;
}

export const HYBRID_CONFIG_KEYS: Readonly<Record<string, Target>> = {
  'defaults.max_iterations': { to: 'maxIterations' },
  'defaults.timeout_minutes': { to: 'timeoutMinutes' },
  'defaults.rate_limit_per_hour': { to: 'rateLimit.callsPerHour' },
  'circuit_breaker.no_progress_threshold': { to: 'circuitBreaker.noProgressThreshold' },
  'circuit_breaker.same_error_threshold': { to: 'circuitBreaker.sameErrorThreshold' },
  'claude.dangerously_skip_permissions': { to: 'agents.claude.dangerouslySkipPermissions' },
  quality_checks: { to: 'qualityChecks' },
  protected_branches: { to: 'protectedBranches' },
};

/** Keys ralph reads but does not use, with why: a warning, not an error. */
const HYBRID_UNUSED: Readonly<Record<string, string>> = {
  'claude.allowed_tools':
    "ralph decides what the agent may do with its guard (the guard: settings), not Claude Code's --allowedTools; claude.allowed_tools is not used",
};

// `completion` is not among them: completion.promise is ralph's own key too (the spec's name).
const SECTIONS = ['defaults', 'circuit_breaker', 'claude'];

/**
 * `data` with every Ralph Hybrid key moved to ralph's key. Throws when a file sets both spellings
 * of one setting, or a ralph-hybrid section holds a key that has no mapping.
 */
export function foldHybridKeys(
  data: Settings,
  file: string,
): { data: Settings; mapped: HybridMapping[]; warnings: string[] } {
  const TOP_LEVEL = ['quality_checks', 'protected_branches'];
  // Everything but the Ralph Hybrid keys, which move() puts back under ralph's names.
  const result: Settings = Object.fromEntries(
    Object.entries(data).filter(([key]) => !SECTIONS.includes(key) && !TOP_LEVEL.includes(key)),
  );
  const mapped: HybridMapping[] = [];
  const warnings: string[] = [];
  const move = (from: string, value: unknown): void => {
    const target = HYBRID_CONFIG_KEYS[from];
    if (target === undefined) return;
    const segments = target.to.split('.');
    if (getPath(data, segments) !== undefined) {
      throw new RalphError('INVALID_CONFIG', `${file}: both ${from} and ${target.to} are set`, {
        hint: `${from} is Ralph Hybrid's name for ${target.to}: keep one of them.`,
        location: { file, field: from },
      });
    }
    setPath(result, segments, target.convert === undefined ? value : target.convert(value));
    mapped.push({ file, from, to: target.to });
  };
  for (const section of SECTIONS) {
    const value = data[section];
    if (value === undefined) continue;
    if (!isPlainObject(value)) {
      throw new RalphError('INVALID_CONFIG', `${file}: ${section} must be a mapping`, {
        hint: `${section} is a Ralph Hybrid section: ${known(section)}`,
        location: { file, field: section },
      });
    }
    for (const [key, child] of Object.entries(value)) {
      const from = `${section}.${key}`;
      const unused = HYBRID_UNUSED[from];
      if (unused !== undefined) warnings.push(`${file}: ${unused}`);
      else if (HYBRID_CONFIG_KEYS[from] !== undefined) move(from, child);
      else {
        throw new RalphError('INVALID_CONFIG', `${file}: unknown Ralph Hybrid setting ${from}`, {
          hint: `ralph reads these keys of ${section}: ${known(section)}`,
          location: { file, field: from },
        });
      }
    }
  }
  for (const key of TOP_LEVEL) {
    if (data[key] !== undefined) move(key, data[key]);
  }
  return { data: result, mapped, warnings };
}

function known(section: string): string {
  return Object.entries(HYBRID_CONFIG_KEYS)
    .filter(([from]) => from.startsWith(`${section}.`))
    .map(([from, target]) => `${from.slice(section.length + 1)} (→ ${target.to})`)
    .join(', ');
}

function getPath(data: Settings, segments: readonly string[]): unknown {
  let current: unknown = data;
  for (const segment of segments) {
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

function setPath(data: Settings, segments: readonly string[], value: unknown): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    data[head] = value;
    return;
  }
  const child = data[head];
  const next: Settings = isPlainObject(child) ? { ...child } : {};
  data[head] = next;
  setPath(next, rest, value);
}
