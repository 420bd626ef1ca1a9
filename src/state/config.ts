import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isScalar, parseDocument } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type * as z from 'zod';
import { RalphError } from '../util/errors.js';
import type { SourceLocation } from '../util/errors.js';
import {
  CONFIG_ENV_ALIASES,
  CONFIG_KEYS,
  CONFIG_REQUIREMENTS,
  configFileSchema,
  configSchema,
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

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const warnings: string[] = [];
  const files: LoadedConfig['files'] = {};
  const layers: { source: ConfigSource; settings: Settings }[] = [];

  const userFile = userConfigPath(options);
  const user = await readConfigFile(userFile);
  if (user !== undefined) {
    files.user = userFile;
    warnings.push(...user.warnings);
    layers.push({ source: 'user', settings: user.settings });
  }
  if (options.repoRoot !== undefined) {
    const projectFile = projectPaths(options.repoRoot).config;
    const project = await readConfigFile(projectFile);
    if (project !== undefined) {
      files.project = projectFile;
      warnings.push(...project.warnings);
      layers.push({ source: 'project', settings: project.settings });
    }
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
    const pos = syntaxError.linePos?.[0];
    const line = pos?.line;
    const where = pos === undefined ? '' : ` at line ${pos.line}, column ${pos.col}`;
    const source = line === undefined ? undefined : text.split(/\r?\n/)[line - 1];
    throw new RalphError(
      'INVALID_YAML',
      `invalid YAML in ${file}${where}: ${syntaxError.message}`,
      {
        hint:
          source === undefined
            ? 'Check the indentation and quoting (YAML uses spaces, not tabs).'
            : `Line ${line ?? ''} reads: ${source.trim()}  (check indentation and quoting; YAML uses spaces, not tabs)`,
        location: { file, line, column: pos?.col },
        cause: syntaxError,
      },
    );
  }
  const warnings = doc.warnings.map((warning) => `${file}: ${warning.message}`);
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return { settings: {}, warnings };
  if (!isPlainObject(data)) {
    throw new RalphError('INVALID_CONFIG', `${file} must be a mapping of settings (key: value)`, {
      hint: 'For example:\nmaxIterations: 30\nprofile: quality',
      location: { file, line: 1 },
    });
  }
  const parsed = configFileSchema.safeParse(data);
  if (parsed.success) return { settings: parsed.data, warnings };
  const located = splitUnknownKeys(parsed.error.issues).map((issue) => ({
    issue,
    location: locateIssue(issue, doc, lineCounter, file),
  }));
  located.sort((a, b) => (a.location.line ?? 0) - (b.location.line ?? 0));
  const problems = located.map(({ issue, location }) => ({
    ...describeIssue(issue, data),
    where: `${file}${location.line === undefined ? '' : ` (line ${location.line})`}`,
    location,
  }));
  throw configError(problems);
}

/** Reads the RALPH_* variables that name settings; unknown RALPH_* variables are left alone. */
export function configFromEnv(env: Readonly<Record<string, string | undefined>>): {
  settings: ConfigFile;
  warnings: string[];
} {
  const settings: Settings = {};
  const warnings: string[] = [];
  const origin = new Map<string, string>();
  for (const key of CONFIG_KEYS) {
    const names = [
      key.envVar,
      ...Object.keys(CONFIG_ENV_ALIASES).filter((alias) => CONFIG_ENV_ALIASES[alias] === key.path),
    ];
    // Shells make `VAR=` the easy way to unset for one command: empty means not set.
    const set = names.filter((name) => (env[name] ?? '').trim() !== '');
    const [chosen, ...others] = set;
    if (chosen === undefined) continue;
    const raw = (env[chosen] ?? '').trim();
    for (const other of others) {
      if ((env[other] ?? '').trim() !== raw) warnings.push(`${chosen} overrides ${other}`);
    }
    origin.set(key.path, chosen);
    setIn(settings, key.segments, coerce(key, chosen, raw));
  }
  const parsed = configFileSchema.safeParse(settings);
  if (parsed.success) return { settings: parsed.data, warnings };
  throw configError(
    splitUnknownKeys(parsed.error.issues).map((issue) => {
      const variable = origin.get(keyPathOf(issue.path)) ?? 'RALPH_*';
      return { ...describeIssue(issue, settings), where: `environment variable ${variable}` };
    }),
  );
}

function validateFlags(flags: ConfigFile): Settings {
  const parsed = configFileSchema.safeParse(flags);
  if (parsed.success) return parsed.data;
  throw configError(
    splitUnknownKeys(parsed.error.issues).map((issue) => ({
      ...describeIssue(issue, flags),
      where: `option --${keyPathOf(issue.path).split('.').map(toKebab).join('.')}`,
    })),
  );
}

function coerce(key: ConfigKey, variable: string, raw: string): unknown {
  switch (key.kind) {
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'boolean':
      if (/^(true|1)$/i.test(raw)) return true;
      if (/^(false|0)$/i.test(raw)) return false;
      throw envValueError(variable, raw, key.path, 'true or false (or 1 / 0)');
    case 'number':
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw)) {
        throw envValueError(variable, raw, key.path, CONFIG_REQUIREMENTS[key.path] ?? 'a number');
      }
      return Number(raw);
    case 'string':
      return raw;
  }
}

function envValueError(variable: string, raw: string, path: string, requirement: string) {
  return new RalphError('INVALID_CONFIG', `environment variable ${variable}="${raw}" is invalid`, {
    hint: `${variable} sets ${path}, which must be ${requirement}.`,
  });
}

interface Problem {
  message: string;
  hint: string;
  where: string;
  location?: SourceLocation;
}

function configError(problems: Problem[]): RalphError {
  const [first, ...rest] = problems;
  if (first === undefined) return new RalphError('INVALID_CONFIG', 'invalid configuration');
  const more = rest.map((problem) => `\n  also: ${problem.message} (${problem.where})`).join('');
  return new RalphError('INVALID_CONFIG', `${first.message} in ${first.where}${more}`, {
    hint: first.hint,
    ...(first.location === undefined ? {} : { location: first.location }),
  });
}

/** One problem per unknown key, so each is located and suggested on its own. */
function splitUnknownKeys(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  return issues.flatMap((issue): z.core.$ZodIssue[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ ...issue, keys: [key] }))
      : [issue],
  );
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown): Omit<Problem, 'where'> {
  const path = keyPathOf(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(issue.path);
    const [unknown] = issue.keys;
    const full = [path, unknown].filter((part) => part !== '').join('.');
    const suggestion = unknown === undefined ? undefined : suggestKey(unknown, known);
    return {
      message: `unknown setting "${full}"`,
      hint:
        suggestion === undefined
          ? `Known settings${path === '' ? '' : ` under ${path}`}: ${known.join(', ')}.`
          : `Did you mean "${suggestion}"?`,
    };
  }
  const requirement = CONFIG_REQUIREMENTS[path];
  const value = getIn(data, issue.path);
  return {
    message: `invalid value for ${path === '' ? 'the settings' : path}: ${preview(value)}`,
    hint: requirement === undefined ? issue.message : `${path} must be ${requirement}.`,
  };
}

function locateIssue(
  issue: z.core.$ZodIssue,
  doc: Document,
  lineCounter: LineCounter,
  file: string,
): SourceLocation {
  const field = keyPathOf(issue.path);
  let node = nearestNode(doc, issue.path);
  if (issue.code === 'unrecognized_keys' && isMap(node)) {
    const [unknown] = issue.keys;
    const pair = node.items.find((item) => isScalar(item.key) && item.key.value === unknown);
    if (isScalar(pair?.key)) node = pair.key;
    return at(file, node, lineCounter, [field, unknown].filter((part) => part !== '').join('.'));
  }
  return at(file, node, lineCounter, field);
}

function at(
  file: string,
  node: YamlNode | undefined,
  lineCounter: LineCounter,
  field: string,
): SourceLocation {
  const offset = node?.range?.[0];
  if (offset === undefined) return { file, field };
  const pos = lineCounter.linePos(offset);
  return { file, line: pos.line, column: pos.col, field };
}

/** The node at `path`, or its deepest ancestor present in the document. */
function nearestNode(doc: Document, path: readonly PropertyKey[]): YamlNode | undefined {
  for (let length = path.length; length > 0; length--) {
    const node: unknown = doc.getIn(path.slice(0, length), true);
    if (node !== undefined && node !== null && typeof node === 'object') return node as YamlNode;
  }
  return doc.contents ?? undefined;
}

function knownKeysAt(path: readonly PropertyKey[]): string[] {
  const depth = path.length;
  const prefix = path.map(String);
  const keys = CONFIG_KEYS.filter(
    (key) => key.segments.length > depth && prefix.every((part, i) => key.segments[i] === part),
  ).map((key) => key.segments[depth] ?? '');
  return [...new Set(keys)];
}

/** The closest known key: same letters ignoring case and `_`/`-` (max_iterations), else a typo. */
export function suggestKey(unknown: string, known: readonly string[]): string | undefined {
  const squash = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
  const exact = known.find((key) => squash(key) === squash(unknown));
  if (exact !== undefined) return exact;
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(squash(unknown), squash(key));
    if (best === undefined || distance < best.distance) best = { key, distance };
  }
  const allowed = Math.max(2, Math.floor(unknown.length / 3));
  return best !== undefined && best.distance <= allowed ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
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

function isPlainObject(value: unknown): value is Settings {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `maxIterations` for ['maxIterations']; array indexes are dropped (protectedBranches[1] → protectedBranches). */
function keyPathOf(path: readonly PropertyKey[]): string {
  return path
    .filter((part) => typeof part === 'string')
    .map(String)
    .join('.');
}

function toKebab(camel: string): string {
  return camel.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

function preview(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
