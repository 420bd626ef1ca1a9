import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  CONFIG_DOCS_END,
  CONFIG_DOCS_START,
  configTableMarkdown,
  withConfigTable,
} from './config-docs.js';
import { CONFIG_KEYS } from './config-schema.js';

const README = new URL('../../README.md', import.meta.url);

describe('the README configuration table', () => {
  it('is current (run `npm run schemas` after changing a setting)', async () => {
    const readme = await readFile(README, 'utf8');
    expect(readme).toBe(withConfigTable(readme));
  });

  it('has one row per key with its default and environment variables', () => {
    const rows = configTableMarkdown().split('\n').slice(2);
    expect(rows).toHaveLength(CONFIG_KEYS.length);
    const row = (key: string) => rows.find((each) => each.startsWith(`| \`${key}\` `));
    expect(row('maxIterations')).toMatch(/\| `20` +\| `RALPH_MAX_ITERATIONS` +\|$/);
    expect(row('rateLimit.callsPerHour')).toContain('`100` (0: off)');
    expect(row('agents.claude.command')).toContain(
      '`RALPH_AGENTS_CLAUDE_COMMAND` or `RALPH_CLAUDE_BIN`',
    );
    expect(row('usageLimit.action')).toContain('(wait, exit, ask)');
    expect(row('budget.maxCostUsd')).toContain('| no limit ');
  });

  it('replaces only what lies between the markers', () => {
    const readme = `intro\n${CONFIG_DOCS_START}\nold table\n${CONFIG_DOCS_END}\noutro\n`;
    const updated = withConfigTable(readme);
    expect(updated.startsWith(`intro\n${CONFIG_DOCS_START}\n\n| key `)).toBe(true);
    expect(updated.endsWith(`|\n\n${CONFIG_DOCS_END}\noutro\n`)).toBe(true);
    expect(updated).not.toContain('old table');
    expect(() => withConfigTable('no markers')).toThrow(/lacks the markers/);
  });
});
