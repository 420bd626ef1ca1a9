import { LineCounter, isMap, isScalar, parseDocument, visit } from 'yaml';
import type { Document, Node as YamlNode } from 'yaml';
import type * as z from 'zod';
import { RalphError, type SourceLocation } from '../util/errors.js';
import { configError, getIn, isPlainObject, withoutNulls } from './config-problems.js';
import { foldHybridKeys, type HybridMapping } from './hybrid-config.js';
import {
  CONFIG_FILE_ALIASES,
  CONFIG_TABLE,
  configFileSchema,
  explainIssue,
  keyPathOf,
  splitUnknownKeys,
} from './config-schema.js';
import type { ConfigFile } from './config-schema.js';

// The YAML side of config.ts, in a module of its own: config.ts imports it only once a config
// file exists, so the commands of a machine without one never load the YAML parser (~10 ms).

type Issue = z.core.$ZodIssue;

/**
 * Parses config YAML text; `file` only names it in errors. An empty file means no settings.
 * Ralph Hybrid's keys are read as ralph's (hybrid-config.ts); in a file of Ralph Hybrid's own
 * (`hybridFile`), keys ralph does not know are skipped with a warning rather than refused, since
 * that file also serves ralph-hybrid.
 */
export function parseConfigYaml(
  text: string,
  file: string,
  options: { hybridFile?: boolean } = {},
): { settings: ConfigFile; warnings: string[]; mapped: HybridMapping[] } {
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
  const data = withoutNulls(toJs(doc, lineCounter, file));
  if (data === undefined) return { settings: {}, warnings, mapped: [] };
  if (!isPlainObject(data)) {
    throw new RalphError('INVALID_CONFIG', `${file}: expected a mapping of settings (key: value)`, {
      hint: 'For example:\nmaxIterations: 30\nprofile: quality',
      location: { file, line: 1, column: 1 },
    });
  }
  const hybrid = foldHybridKeys(data, file);
  warnings.push(...hybrid.warnings);
  let folded = withAliasesFolded(hybrid.data, file);
  if (options.hybridFile === true) {
    const skipped = Object.keys(folded).filter((key) => !(key in CONFIG_TABLE));
    for (const key of skipped)
      warnings.push(`${file}: ${key} is a Ralph Hybrid setting ralph does not use; skipped`);
    folded = Object.fromEntries(Object.entries(folded).filter(([key]) => !skipped.includes(key)));
  }
  const parsed = configFileSchema.safeParse(folded);
  if (parsed.success) return { settings: parsed.data, warnings, mapped: hybrid.mapped };
  const problems = splitUnknownKeys(parsed.error.issues).map((issue) => {
    const location = locateIssue(issue, doc, lineCounter, file);
    const where = `${file}${location.line === undefined ? '' : `:${location.line}:${location.column ?? 1}`}`;
    return { ...explainIssue(issue, getIn(data, issue.path)), where, location };
  });
  problems.sort((a, b) => (a.location.line ?? 0) - (b.location.line ?? 0));
  throw configError(problems);
}

/**
 * A config file needs few aliases, if any; an alias bomb (anchors nesting aliases of each other,
 * "billion laughs") would expand to gigabytes. yaml stops it at MAX_ALIASES expansions; that stop
 * is a config error pointing at the first alias, not an internal error.
 */
const MAX_ALIASES = 100;

function toJs(doc: Document, lineCounter: LineCounter, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    if (!(error instanceof ReferenceError) || !/alias/i.test(error.message)) throw error;
    let offset = 0;
    visit(doc, {
      Alias(_key, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const { line, col } = lineCounter.linePos(offset);
    throw new RalphError(
      'INVALID_CONFIG',
      `${file}:${line}:${col}: too many YAML aliases: they expand beyond ${MAX_ALIASES} copies (an alias bomb?)`,
      {
        hint: 'Write the values out instead of nesting aliases (*name) of anchors (&name) that hold aliases themselves.',
        location: { file, line, column: col },
        cause: error,
      },
    );
  }
}

/** `quality_checks:` is read as `qualityChecks:`; both in one file is a mistake to point out. */
function withAliasesFolded(data: Record<string, unknown>, file: string): Record<string, unknown> {
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
