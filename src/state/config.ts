import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type * as z from 'zod';
import { RalphError } from '../util/errors.js';
import type { SourceLocation } from '../util/errors.js';
import {
  CONFIG_ENV_ALIASES,
  CONFIG_FILE_ALIASES,
  CONFIG_KEYS,
  configFileSchema,
  configSchema,
  explainIssue,
  keyPathOf,
  splitUnknownKeys,
} from './config-schema.js';
import type { Config, ConfigFile, ConfigKey } from './config-schema.js';
import { projectPaths, userConfigPath } from './paths.js';

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
}

type Settings = Record<string, unknown>;
type Issue = z.core.$ZodIssue;

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const files: LoadedConfig['files'] = {};
  const layers: { source: ConfigSource; settings: Settings }[] = [];
  const candidates = [
    { source: 'user' as const, file: userConfigPath(options) },
    ...(options.repoRoot === undefined
      ? []
      : [{ source: 'project' as const, file: projectPaths(options.repoRoot).config }]),
  ];
  for (const { source, file } of candidates) {
    const loaded = await readConfigFile(file);
    if (loaded === undefined) continue;
    files[source] = file;
    warnings.push(...loaded.warnings);
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
  return { config: configSchema.parse(merged), sources, files, warnings };
}

/** Reads and validates one config file; undefined when it does not exist. */
export async function readConfigFile(
  file: string,
): Promise<{ settings: ConfigFile; warnings: string[] } | undefined> {
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
  return parseConfigYaml(text, file);
}

/** Parses config YAML text; `file` only names it in errors. An empty file means no settings. */
export function parseConfigYaml(
  text: string,
  file: string,
): { settings: ConfigFile; warnings: string[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntaxError = doc.errors[0];
  if (syntaxError !== undefined) {
    const { line, col } = lineCounter.linePos(syntaxError.pos[0]);
    const source = text.split(/\r?\n/)[line - 1]?.trim() ?? '';
    throw new RalphError('INVALID_YAML', `${file}:${line}:${col}: ${syntaxError.message}`, {
      hint: `${source === '' ? '' : `Line ${line} reads: ${source}\n`}Check the indentation (spaces, not tabs), colons and quotes around there.`,
      location: { file, line, column: col },
      cause: syntaxError,
    });
  }
  const warnings = doc.warnings.map((warning) => `${file}: ${warning.message}`);
  // `key:` with no value is null in YAML; templates leave keys like that (or with every child
  // commented out), so an empty value means "not set", like a missing key.
  const data = withoutNulls(doc.toJS());
  if (data === undefined) return { settings: {}, warnings };
  if (!isPlainObject(data)) {
    throw new RalphError('INVALID_CONFIG', `${file}: expected a mapping of settings (key: value)`, {
      hint: 'For example:\nmaxIterations: 30\nprofile: quality',
      location: { file, line: 1, column: 1 },
    });
  }
  const parsed = configFileSchema.safeParse(withAliasesFolded(data, file));
  if (parsed.success) return { settings: parsed.data, warnings };
  const problems = splitUnknownKeys(parsed.error.issues).map((issue) => {
    const location = locateIssue(issue, doc, lineCounter, file);
    const where = `${file}${location.line === undefined ? '' : `:${location.line}:${location.column ?? 1}`}`;
    return { ...explainIssue(issue, getIn(data, issue.path)), where, location };
  });
  problems.sort((a, b) => (a.location.line ?? 0) - (b.location.line ?? 0));
  throw configError(problems);
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

interface Problem {
  problem: string;
  hint: string;
  /** `file:line:column`, `environment variable X` or `option --x`. */
  where: string;
  location?: SourceLocation;
}

function configError(problems: Problem[]): RalphError {
  const [first, ...rest] = problems;
  if (first === undefined) return new RalphError('INVALID_CONFIG', 'invalid configuration');
  const more = rest.map((p) => `\n  ${p.where}: ${p.problem}`).join('');
  return new RalphError('INVALID_CONFIG', `${first.where}: ${first.problem}${more}`, {
    hint: first.hint,
    ...(first.location === undefined ? {} : { location: first.location }),
  });
}

function locateIssue(
  issue: Issue,
  doc: Document,
  lineCounter: LineCounter,
  file: string,
): SourceLocation {
  let node = nearestNode(doc, issue.path);
  let field = keyPathOf(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const unknown = issue.keys[0] ?? '';
    field = [field, unknown].filter(Boolean).join('.');
    const pair = isMap(node)
      ? node.items.find((item) => isScalar(item.key) && item.key.value === unknown)
      : undefined;
    if (isScalar(pair?.key)) node = pair.key;
  }
  const offset = node?.range?.[0];
  if (offset === undefined) return { file, field };
  const { line, col } = lineCounter.linePos(offset);
  return { file, line, column: col, field };
}

/** The node at `path`, or its deepest ancestor present in the document. */
function nearestNode(doc: Document, path: readonly PropertyKey[]): YamlNode | undefined {
  for (let length = path.length; length > 0; length--) {
    const node: unknown = doc.getIn(path.slice(0, length), true);
    if (typeof node === 'object' && node !== null) return node as YamlNode;
  }
  return doc.contents ?? undefined;
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

function getIn(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
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

/** `quality_checks:` is read as `qualityChecks:`; both in one file is a mistake to point out. */
function withAliasesFolded(data: Settings, file: string): Settings {
  const aliases = Object.keys(data).filter((key) => key in CONFIG_FILE_ALIASES);
  for (const alias of aliases) {
    const key = CONFIG_FILE_ALIASES[alias] ?? alias;
    if (key in data) {
      throw new RalphError('INVALID_CONFIG', `${file}: both ${alias} and ${key} are set`, {
        hint: `${alias} is another spelling of ${key}: keep one of them.`,
        location: { file, field: alias },
      });
    }
  }
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [CONFIG_FILE_ALIASES[key] ?? key, value]),
  );
}

function withoutNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (!isPlainObject(value)) return value;
  const entries = Object.entries(value).map(([key, child]) => [key, withoutNulls(child)] as const);
  return Object.fromEntries(entries.filter(([, child]) => child !== undefined));
}

function isPlainObject(value: unknown): value is Settings {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toKebab(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
