import { describe, expect, it } from 'vitest';
import { PRD, SPEC } from '../../test/fixtures/plan-feature.js';
import { parseTaskList } from './read.js';
import { parseSpec } from './spec.js';
import { checkSpecSync } from './spec-sync.js';
import { prdFromSpec, syncPrdFromSpec } from './sync-prd.js';
import { specFromPrd, syncSpecFromPrd } from './sync-spec.js';

const doc = (text = PRD) => parseTaskList(text, 'prd.json');
const NOW = new Date('2026-02-01T00:00:00Z');

function errorsOf(specText: string, prdText: string): string[] {
  return checkSpecSync(parseSpec(specText, 'spec.md'), doc(prdText).taskList)
    .filter((f) => f.severity === 'error')
    .map((f) => f.message);
}

function stories(prdText: string): Record<string, unknown>[] {
  return (JSON.parse(prdText) as { userStories: Record<string, unknown>[] }).userStories;
}

describe('ralph sync (spec.md → prd.json)', () => {
  it('changes nothing when the pair agrees, even with trivial criteria differences', () => {
    const trivial = PRD.replace('"Email field is required"', '"- [ ] Email field is required."');
    expect(errorsOf(SPEC, trivial)).toEqual([]);
    const outcome = syncPrdFromSpec(SPEC, 'spec.md', doc(trivial));
    expect(outcome.text).toBe(trivial);
    expect(outcome.changes).toEqual([]);
  });

  it('adds new stories in place, takes over titles and criteria, resets passes where criteria changed', () => {
    const spec = SPEC.replace('### STORY-001: Data list view', '### STORY-001: Data table view')
      .replace('- [ ] Email field is required', '- [ ] Email validated against RFC 5322')
      .replace(
        '### STORY-003: Advanced filtering',
        '### STORY-002.1: Trim input\n\n**Acceptance Criteria:**\n\n- [ ] Spaces trimmed\n\n### STORY-003: Advanced filtering',
      );
    expect(errorsOf(spec, PRD).length).toBeGreaterThan(0);
    const outcome = syncPrdFromSpec(spec, 'spec.md', doc());
    expect(outcome.warnings).toEqual([
      "STORY-002's acceptance criteria changed: passes reset to false",
    ]);
    const list = stories(outcome.text);
    expect(list.map((s) => s.id)).toEqual(['STORY-001', 'STORY-002', 'STORY-002.1', 'STORY-003']);
    // Title only: passes and notes kept.
    expect(list[0]).toMatchObject({
      title: 'Data table view',
      passes: true,
      notes: 'done in iteration 1',
    });
    expect(list[1]).toMatchObject({
      passes: false,
      acceptanceCriteria: ['Email validated against RFC 5322', 'Typecheck passes'],
    });
    expect(list[2]).toMatchObject({
      passes: false,
      priority: 2,
      acceptanceCriteria: ['Spaces trimmed'],
    });
    expect(list[3]).toMatchObject({ 'x-owner': 'team-a' });
    expect(outcome.text).toContain('"custom": {"keep":   "me"}');
    expect(errorsOf(spec, outcome.text)).toEqual([]);
  });

  it('keeps orphans unless removal is confirmed, and then drops dependencies on them', () => {
    const spec = SPEC.replace(/### STORY-002:[\s\S]*?(?=### STORY-003)/, '');
    const kept = syncPrdFromSpec(spec, 'spec.md', doc());
    expect(kept.keptOrphans).toEqual(['STORY-002']);
    expect(kept.text).toBe(PRD);
    expect(kept.warnings[0]).toContain(
      'STORY-002 is in prd.json but not in spec.md (passes: true, COMPLETED WORK)',
    );
    const removed = syncPrdFromSpec(spec, 'spec.md', doc(), { confirmOrphanRemoval: true });
    expect(removed.keptOrphans).toEqual([]);
    expect(stories(removed.text).map((s) => s.id)).toEqual(['STORY-001', 'STORY-003']);
    expect(stories(removed.text)[1]?.dependsOn).toEqual([]);
    expect(errorsOf(spec, removed.text)).toEqual([]);
  });

  it('writes a whole prd.json for a spec.md that has none', () => {
    const outcome = prdFromSpec(SPEC, 'spec.md', NOW);
    const list = stories(outcome.text);
    expect(list.map((s) => s.id)).toEqual(['STORY-001', 'STORY-002', 'STORY-003']);
    expect(list[0]).toMatchObject({
      description: 'As a user I want to see my data in a list So that I can find rows',
      priority: 1,
      passes: false,
    });
    expect(errorsOf(SPEC, outcome.text)).toEqual([]);
  });

  it('refuses a spec.md that defines a story twice', () => {
    const twice = SPEC.replace('### STORY-003: Advanced filtering', '### STORY-002: Again');
    expect(() => syncPrdFromSpec(twice, 'spec.md', doc())).toThrow('STORY-002 is defined twice');
  });
});

describe('ralph sync --from prd (prd.json → spec.md)', () => {
  it('writes a spec.md that validates against the prd.json', () => {
    const outcome = specFromPrd(doc(), NOW);
    expect(outcome.text).toContain('### STORY-002: Validate user input');
    expect(errorsOf(outcome.text, PRD)).toEqual([]);
  });

  it('edits an existing spec.md in place: new stories, titles and criteria; prose kept', () => {
    const prd = PRD.replace('"title": "Data list view"', '"title": "Data table"')
      .replace('"Email field is required"', '"Email validated", "No plus signs"')
      .replace(
        '\n  ]\n}',
        ',\n    {"id": "STORY-004", "title": "CSV", "description": "Export", "acceptanceCriteria": ["A file downloads"], "priority": 4, "passes": false}\n  ]\n}',
      );
    const outcome = syncSpecFromPrd(SPEC, 'spec.md', doc(prd));
    expect(outcome.text).toContain('### STORY-001: Data table\n');
    expect(outcome.text).toContain(
      '- [ ] Email validated\n- [ ] No plus signs\n- [ ] Typecheck passes\n',
    );
    expect(outcome.text).toContain('**I want to** get told about bad input');
    expect(outcome.text).toContain('### STORY-004: CSV');
    expect(outcome.text.indexOf('### STORY-004')).toBeLessThan(
      outcome.text.indexOf('## Out of Scope'),
    );
    expect(outcome.text).toContain('## Open Questions\n\n- Which delimiter?\n');
    expect(errorsOf(outcome.text, prd)).toEqual([]);
    expect(syncSpecFromPrd(outcome.text, 'spec.md', doc(prd)).text).toBe(outcome.text);
  });

  it('removes stories prd.json lacks only when confirmed', () => {
    const prd = JSON.stringify({
      ...JSON.parse(PRD),
      userStories: stories(PRD)
        .slice(0, 2)
        .map((s) => ({ ...s, dependsOn: [] })),
    });
    const kept = syncSpecFromPrd(SPEC, 'spec.md', doc(prd));
    expect(kept.keptOrphans).toEqual(['STORY-003']);
    expect(kept.text).toBe(SPEC);
    const removed = syncSpecFromPrd(SPEC, 'spec.md', doc(prd), { confirmOrphanRemoval: true });
    expect(removed.text).not.toContain('STORY-003');
    expect(errorsOf(removed.text, prd)).toEqual([]);
  });
});
