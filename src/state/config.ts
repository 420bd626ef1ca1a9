import { readFile } from 'node:fs/promises';
import { RalphError } from '../util/errors.js';
import { configError, getIn, isPlainObject, type Settings } from './config-problems.js';
import {
  CONFIG_ENV_ALIASES,
  CONFIG_KEYS,
  configFileSchema,
  configSchema,
  explainIssue,
  keyPathOf,
  splitUnknownKeys,
} from './config-schema.js';
import type { Config, ConfigFile, ConfigKey } from './config-schema.js';
import type { HybridMapping } from './hybrid-config.js';
import { hybridUserConfigPath, projectPaths, userConfigPath } from './paths.js';

/**
 * Loads the configuration from its five sources (design.md §4): CLI flag > environment
 * (RALPH_*) > project .ralph/config.yaml > user config > defaults. Objects merge key by key;
 * arrays and scalars replace. ralph never writes config files.
 */

export type ConfigSource = 'default' | 'user' | 'project' | 'env' | 'flag';

export interface LoadConfigOptions {
  homeDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Where to look for `.ralph/config.yaml`; no project config without it. */
  repoRoot?: string | undefined;
  flags?: ConfigFile | undefined;
}

export interface LoadedConfig {
  config: Config;
  /** For every settable key path (`agents.claude.command`), the source its value came from. */
  sources: Record<string, ConfigSource>;
  /** The config files that existed and were read. */
  files: { user?: string; project?: string };
  warnings: string[];
  /** Ralph Hybrid keys read as ralph's (`defaults.max_iterations` → `maxIterations`). */
  mapped: HybridMapping[];
}

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const files: LoadedConfig['files'] = {};
  const mapped: HybridMapping[] = [];
  const layers: { source: ConfigSource; settings: Settings }[] = [];
  // Ralph Hybrid's files sit just below ralph's own of the same kind: ralph's win.
  const project = options.repoRoot === undefined ? undefined : projectPaths(options.repoRoot);
  const candidates = [
    { source: 'user' as const, file: hybridUserConfigPath(options.homeDir), hybrid: true },
    { source: 'user' as const, file: userConfigPath(options), hybrid: false },
    ...(project === undefined
      ? []
      : [
          { source: 'project' as const, file: project.hybridConfig, hybrid: true },
          { source: 'project' as const, file: project.config, hybrid: false },
        ]),
  ];
  for (const { source, file, hybrid } of candidates) {
    const loaded = await readConfigFile(file, { hybridFile: hybrid });
    if (loaded === undefined) continue;
    files[source] = file;
    warnings.push(...loaded.warnings);
    mapped.push(...loaded.mapped);
    layers.push({ source, settings: loaded.settings });
  }
  const env = configFromEnv(options.env);
  warnings.push(...env.warnings);
  layers.push({ source: 'env', settings: env.settings });
  layers.push({ source: 'flag', settings: validateFlags(options.flags ?? {}) });

  const merged = layers.reduce<Settings>((acc, layer) => deepMerge(acc, layer.settings), {});
  const sources: Record<string, ConfigSource> = {};
  for (const key of CONFIG_KEYS) {
    const winner = layers.findLast((layer) => getIn(layer.settings, key.segments) !== undefined);
    sources[key.path] = winner?.source ?? 'default';
  }
  // Every layer was validated on its own, so this only fills in defaults.
  return { config: configSchema.parse(merged), sources, files, warnings, mapped };
}

/** Reads and validates one config file; undefined when it does not exist. */
export async function readConfigFile(
  file: string,
  options: { hybridFile?: boolean } = {},
): Promise<{ settings: ConfigFile; warnings: string[]; mapped: HybridMapping[] } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new RalphError('IO', `cannot read config file ${file} (${code ?? String(error)})`, {
      location: { file },
      cause: error,
    });
  }
  // The YAML parser loads only now: most machines have no config file at all.
  const { parseConfigYaml } = await import('./config-yaml.js');
  return parseConfigYaml(text, file, options);
}

/** Reads the RALPH_* variables that name settings; other RALPH_* variables are left alone. */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): {
  settings: ConfigFile;
  warnings: string[];
} {
  const settings: Settings = {};
  const warnings: string[] = [];
  const origin = new Map<string, string>();
  for (const key of CONFIG_KEYS) {
    const aliases = Object.keys(CONFIG_ENV_ALIASES).filter(
      (a) => CONFIG_ENV_ALIASES[a] === key.path,
    );
    // `VAR= ralph …` is the shell's easy way to unset for one command: empty means not set.
    const [chosen, ...others] = [key.envVar, ...aliases].filter((n) => env[n]?.trim());
    if (chosen === undefined) continue;
    const raw = env[chosen]?.trim() ?? '';
    for (const other of others) {
      if (env[other]?.trim() !== raw) warnings.push(`${chosen} overrides ${other}`);
    }
    origin.set(key.path, chosen);
    setIn(settings, key.segments, coerce(key, chosen, raw));
  }
  const parsed = configFileSchema.safeParse(settings);
  if (parsed.success) return { settings: parsed.data, warnings };
  throw configError(
    parsed.error.issues.map((issue) => {
      const variable = origin.get(keyPathOf(issue.path)) ?? 'RALPH_*';
      return {
        ...explainIssue(issue, getIn(settings, issue.path)),
        where: `environment variable ${variable}`,
      };
    }),
  );
}

function validateFlags(flags: ConfigFile): Settings {
  const parsed = configFileSchema.safeParse(flags);
  if (parsed.success) return parsed.data;
  throw configError(
    splitUnknownKeys(parsed.error.issues).map((issue) => {
      const path = [...issue.path, ...(issue.code === 'unrecognized_keys' ? issue.keys : [])];
      const flag = keyPathOf(path).split('.').map(toKebab).join('.');
      return { ...explainIssue(issue, getIn(flags, issue.path)), where: `option --${flag}` };
    }),
  );
}

function coerce(key: ConfigKey, variable: string, raw: string): unknown {
  const invalid = () =>
    configError([
      {
        problem: `invalid value ${JSON.stringify(raw)} for ${key.path}`,
        hint: `${key.path} must be ${key.setting.requirement}.`,
        where: `environment variable ${variable}`,
      },
    ]);
  switch (key.kind) {
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'boolean':
      if (/^(true|1)$/i.test(raw)) return true;
      if (/^(false|0)$/i.test(raw)) return false;
      throw invalid();
    case 'number':
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw)) throw invalid();
      return Number(raw);
    case 'string':
      return raw;
    case 'map':
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        throw invalid();
      }
  }
}

function deepMerge(base: Settings, over: Settings): Settings {
  const result: Settings = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = result[key];
    result[key] =
      isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return result;
}

function setIn(target: Settings, segments: readonly string[], value: unknown): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (rest.length === 0) {
    target[head] = value;
    return;
  }
  const child = target[head];
  const next: Settings = isPlainObject(child) ? child : {};
  target[head] = next;
  setIn(next, rest, value);
}

function toKebab(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
