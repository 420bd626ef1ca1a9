import * as z from 'zod';

/**
 * One configuration setting, defined once: its zod type (with its constraints), what a valid
 * value looks like, its default and its description. config-schema.ts builds from a table of
 * these the file schema (every key optional), the resolved schema (defaults applied), the
 * RALPH_* environment names, the published JSON Schema, the CLI's choices and "(default N)"
 * texts and the README's configuration table, so a fact about a key is written here and only
 * here.
 */
export interface Setting<T extends z.ZodType = z.ZodType> {
  readonly type: T;
  /** What the key does; the sentence naming its default is added from `default`. */
  readonly description: string;
  /** What a valid value looks like, for hints: "maxIterations must be <requirement>." */
  readonly requirement: string;
  readonly default?: z.output<T> | undefined;
  /**
   * Set when the default is not applied by the resolved config schema but by the module named
   * here (the guard fills in its lists itself, because `ralph guard` runs without loading zod).
   */
  readonly defaultIn?: string | undefined;
  /** How the docs state a default that is not a value ("no limit", "`claude` on PATH"). */
  readonly defaultText?: string | undefined;
  /** What 0 means when 0 is allowed and special ("off"): said in hints and flag help. */
  readonly zeroMeans?: string | undefined;
  /** Further environment variables for this key, besides RALPH_<PATH>. */
  readonly envAliases?: readonly string[] | undefined;
  /**
   * Other spellings of the key in a config file (Ralph Hybrid's snake_case `quality_checks`),
   * read as this key; a file that sets both is refused.
   */
  readonly fileAliases?: readonly string[] | undefined;
}

/** A mapping of settings (`circuitBreaker: {…}`). */
export interface Section<C extends Table = Table> {
  readonly section: C;
  readonly description: string;
  /** What a valid value looks like; default "a mapping (<its keys>)". */
  readonly requirement?: string | undefined;
}

export type Table = Readonly<Record<string, Setting | Section>>;

type Spec<T extends z.ZodType> = Omit<Setting<T>, 'type' | 'requirement'> & {
  readonly requirement?: string;
};

/** A setting; its spec's own type is kept, so the schemas know which keys have a default. */
export function setting<T extends z.ZodType, S extends Spec<T> & { requirement: string }>(
  type: T,
  spec: S,
): Setting<T> & S {
  return { type, ...spec };
}

export function section<const C extends Table>(
  description: string,
  entries: C,
  requirement?: string,
): Section<C> {
  return { section: entries, description, requirement };
}

// Numbers: each kind of bound gets its zod check and its words together.
const zeroNote = (zeroMeans: string | undefined) =>
  zeroMeans === undefined ? '' : ` (0: ${zeroMeans})`;

/** A whole number ≥ `min`. */
export const wholeNumber = <S extends Spec<z.ZodNumber>>(min: 0 | 1, spec: S) =>
  setting(z.int().min(min), {
    requirement: `a whole number ≥ ${min}${zeroNote(spec.zeroMeans)}`,
    ...spec,
  });

/** A number > 0. */
export const positiveNumber = <S extends Spec<z.ZodNumber>>(spec: S) =>
  setting(z.number().positive(), { requirement: 'a number > 0', ...spec });

/** A number ≥ 0. */
export const nonNegativeNumber = <S extends Spec<z.ZodNumber>>(spec: S) =>
  setting(z.number().min(0), { requirement: `a number ≥ 0${zeroNote(spec.zeroMeans)}`, ...spec });

export const flag = <S extends Spec<z.ZodBoolean>>(spec: S) =>
  setting(z.boolean(), { requirement: 'true or false', ...spec });

export const choice = <
  const C extends readonly [string, ...string[]],
  S extends Spec<z.ZodEnum<{ [K in C[number]]: K }>>,
>(
  choices: C,
  spec: S,
) => setting(z.enum(choices), { requirement: `one of ${choices.join(', ')}`, ...spec });

export const text = <S extends Spec<z.ZodString> & { requirement: string }>(spec: S) =>
  setting(z.string().min(1), spec);

export const list = <S extends Spec<z.ZodArray<z.ZodString>> & { requirement: string }>(spec: S) =>
  setting(z.array(z.string().min(1)), spec);

/** Name → shell command (`qualityChecks: {test: "npm test"}`). */
export const commandMap = <S extends Spec<z.ZodRecord<z.ZodString, z.ZodString>>>(spec: S) =>
  setting(z.record(z.string().min(1), z.string().min(1)), {
    requirement: 'a mapping of names to shell commands (name: command)',
    ...spec,
  });

export function isSection(entry: Setting | Section): entry is Section {
  return 'section' in entry;
}

/** The description with what 0 means, its default and its environment variable said. */
export function fullDescription(entry: Setting, segments: readonly string[]): string {
  const zero =
    entry.zeroMeans === undefined
      ? ''
      : entry.zeroMeans === 'off'
        ? '0 turns it off.'
        : `0 means ${entry.zeroMeans}.`;
  const environment = [envNameOf(segments), ...(entry.envAliases ?? [])].join(' or ');
  return [entry.description, zero, defaultSentence(entry), `Environment: ${environment}.`]
    .filter((part) => part !== '')
    .join(' ');
}

/** `RALPH_` + the key path in SCREAMING_SNAKE_CASE: RALPH_AGENTS_CLAUDE_COMMAND. */
export function envNameOf(segments: readonly string[]): string {
  const snake = segments.map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase());
  return `RALPH_${snake.join('_')}`;
}

function defaultSentence(entry: Setting): string {
  if (entry.defaultText !== undefined) return `Default: ${entry.defaultText}.`;
  const value: unknown = entry.default;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return '';
  if (Array.isArray(value)) return `Default ${formatValue(value)}; a list you set replaces it.`;
  return `Default ${formatValue(value)}.`;
}

/** A default as docs show it: 20, balanced, [main, master, develop]. */
export function formatValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** How the docs state the default: the value, the words for it, or "none". */
export function defaultTextOf(entry: Setting): string {
  if (entry.defaultText !== undefined) return entry.defaultText;
  return entry.default === undefined ? 'none' : formatValue(entry.default);
}

/** What a valid value looks like; a section without its own words lists its keys. */
export function requirementOf(entry: Setting | Section): string {
  if (!isSection(entry)) return entry.requirement;
  if (entry.requirement !== undefined) return entry.requirement;
  const keys = Object.keys(entry.section);
  return `a mapping (${keys.length > 5 ? `${keys.slice(0, 3).join(', ')}, …` : keys.join(', ')})`;
}

// The two schemas a table stands for, typed from the table so Config needs no hand-written type.

type FileShape<T extends Table> = {
  [K in keyof T]: T[K] extends Section<infer C>
    ? z.ZodOptional<z.ZodObject<FileShape<C>, z.core.$strict>>
    : T[K] extends Setting<infer Z>
      ? z.ZodOptional<Z>
      : never;
};

type ResolvedShape<T extends Table> = {
  [K in keyof T]: T[K] extends Section<infer C>
    ? z.ZodPrefault<z.ZodObject<ResolvedShape<C>, z.core.$strict>>
    : T[K] extends Setting<infer Z>
      ? T[K] extends { default: z.output<Z> }
        ? T[K] extends { defaultIn: string }
          ? z.ZodOptional<Z>
          : z.ZodDefault<Z>
        : z.ZodOptional<Z>
      : never;
};

/** The resolved settings of a table (of one section: `Resolved<typeof HOOKS_SETTINGS.section>`). */
export type Resolved<T extends Table> = z.output<z.ZodObject<ResolvedShape<T>, z.core.$strict>>;

/** One layer of settings (a file, the environment, the flags): every key optional, none unknown. */
export function fileSchemaOf<T extends Table>(
  table: T,
  segments: readonly string[] = [],
): z.ZodObject<FileShape<T>, z.core.$strict> {
  const shape = Object.fromEntries(
    Object.entries(table).map(([key, entry]) => {
      const path = [...segments, key];
      if (isSection(entry)) {
        return [key, fileSchemaOf(entry.section, path).optional().describe(entry.description)];
      }
      const meta = {
        description: fullDescription(entry, path),
        ...(entry.default === undefined ? {} : { default: entry.default }),
      };
      return [key, entry.type.meta(meta).optional()];
    }),
  );
  return z.strictObject(shape) as unknown as z.ZodObject<FileShape<T>, z.core.$strict>;
}

/** The resolved settings: every default applied (except those a module applies itself). */
export function resolvedSchemaOf<T extends Table>(
  table: T,
): z.ZodObject<ResolvedShape<T>, z.core.$strict> {
  const shape = Object.fromEntries(
    Object.entries(table).map(([key, entry]): [string, z.ZodType] => {
      if (isSection(entry)) return [key, resolvedSchemaOf(entry.section).prefault({})];
      const fallback: unknown = entry.default;
      if (fallback === undefined || entry.defaultIn !== undefined) {
        return [key, entry.type.optional()];
      }
      // Lists are copied each time: a caller that changes its config must not change the default.
      const value = Array.isArray(fallback) ? () => [...(fallback as unknown[])] : fallback;
      return [key, entry.type.default(value)];
    }),
  );
  return z.strictObject(shape) as unknown as z.ZodObject<ResolvedShape<T>, z.core.$strict>;
}
