import type * as z from 'zod';
import { CONFIG_KEYS, type ConfigKey } from './config-schema.js';
import { formatValue } from './config-setting.js';

/**
 * The README's configuration table, generated from the settings table so the docs cannot drift
 * (`npm run schemas` rewrites it between the markers; a test fails while it is stale).
 */

export const CONFIG_DOCS_START =
  '<!-- config-table: generated from src/state/*-schema.ts by `npm run schemas` -->';
export const CONFIG_DOCS_END = '<!-- /config-table -->';

const HEADER = ['key', 'default', 'environment'] as const;

/** One row per key: `path`, its default, its RALPH_* variables (and how to write the value). */
export function configTableMarkdown(): string {
  const rows = CONFIG_KEYS.map((key) => [
    `\`${key.path}\``,
    defaultCell(key),
    environmentCell(key),
  ]);
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [
    line(HEADER),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

/** `readme` with the text between the markers replaced by the current table. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_DOCS_START);
  const end = readme.indexOf(CONFIG_DOCS_END);
  if (start === -1 || end < start) {
    throw new Error(`README.md lacks the markers ${CONFIG_DOCS_START} … ${CONFIG_DOCS_END}`);
  }
  const before = readme.slice(0, start + CONFIG_DOCS_START.length);
  return `${before}\n\n${configTableMarkdown()}\n\n${readme.slice(end)}`;
}

function defaultCell({ setting }: ConfigKey): string {
  const zero = setting.zeroMeans === undefined ? '' : ` (0: ${setting.zeroMeans})`;
  if (setting.defaultText !== undefined) return `${setting.defaultText}${zero}`;
  if (setting.default === undefined) return `none${zero}`;
  return `\`${formatValue(setting.default)}\`${zero}`;
}

function environmentCell(key: ConfigKey): string {
  const names = [key.envVar, ...(key.setting.envAliases ?? [])].map((name) => `\`${name}\``);
  const type = key.setting.type;
  const how =
    key.kind === 'list'
      ? ' (comma-separated)'
      : key.kind === 'map'
        ? ' (a JSON object)'
        : type.def.type === 'enum'
          ? ` (${(type as z.ZodEnum).options.join(', ')})`
          : key.kind === 'boolean'
            ? ' (true or false)'
            : '';
  return `${names.join(' or ')}${how}`;
}
