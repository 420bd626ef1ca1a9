import { describe, expect, it } from 'vitest';
import { filesOf, PRD, PROGRESS, SPEC } from '../../test/fixtures/plan-feature.js';
import { addStory, correctStory, type AmendOutcome } from './amend.js';
import { removeStory } from './amend-remove.js';
import { parseTaskList } from './read.js';
import { parseSpec, structureProblems } from './spec.js';
import { checkSpecSync } from './spec-sync.js';

/** What `ralph validate` checks of the pair: no sync or structure error after an amendment. */
function expectValid(outcome: AmendOutcome): void {
  const spec = parseSpec(outcome.specText, 'spec.md');
  const doc = parseTaskList(outcome.prdText, 'prd.json');
  const errors = [...checkSpecSync(spec, doc.taskList), ...structureProblems(spec)].filter(
    (f) => f.severity === 'error',
  );
  expect(errors).toEqual([]);
  // Every amendment is also referenced: no "refers to AMD-… which spec.md does not record".
  expect(checkSpecSync(spec, doc.taskList).map((f) => f.message)).not.toContainEqual(
    expect.stringContaining('does not record'),
  );
}

function storyOf(outcome: AmendOutcome, id: string): Record<string, unknown> | undefined {
  const value = JSON.parse(outcome.prdText) as { userStories: Record<string, unknown>[] };
  return value.userStories.find((s) => s.id === id);
}

/** Follows `files` with `outcome` applied, as the next amendment would read them. */
function after(outcome: AmendOutcome, now = new Date('2026-01-09T15:10:00Z')) {
  return filesOf(outcome.specText, outcome.prdText, `${PROGRESS}\n${outcome.progressEntry}`, now);
}

describe('amend add', () => {
  it('adds the next story with AMD-001, keeps every passes and leaves the rest byte-identical', () => {
    const outcome = addStory(filesOf(), {
      title: 'Export data as CSV',
      description: 'As a user I want to export my data as CSV',
      criteria: ['Export button visible', 'Typecheck passes'],
      reason: 'Users need data export for reporting',
    });
    expect(outcome.amendmentId).toBe('AMD-001');
    expect(outcome.storyIds).toEqual(['STORY-004']);
    expect(storyOf(outcome, 'STORY-004')).toMatchObject({
      priority: 4,
      passes: false,
      amendment: {
        id: 'AMD-001',
        type: 'add',
        timestamp: '2026-01-09T14:32:00Z',
        reason: 'Users need data export for reporting',
      },
    });
    expect(storyOf(outcome, 'STORY-001')?.passes).toBe(true);
    expect(storyOf(outcome, 'STORY-002')?.passes).toBe(true);
    // prd.json: the old text is a prefix/suffix of the new; only the new story was spliced in.
    const cut = PRD.lastIndexOf('\n  ]');
    expect(outcome.prdText.startsWith(PRD.slice(0, cut))).toBe(true);
    expect(outcome.prdText.endsWith(PRD.slice(cut))).toBe(true);
    // spec.md: everything before the new Amendments section is untouched.
    expect(outcome.specText.startsWith(SPEC.trimEnd())).toBe(true);
    expect(outcome.specText).toContain('### AMD-001: Export data as CSV (2026-01-09T14:32:00Z)');
    expect(outcome.specText).toContain('**Type:** ADD');
    expect(outcome.specText).toContain('#### STORY-004: Export data as CSV');
    expect(outcome.progressEntry).toContain('## Amendment AMD-001: 2026-01-09T14:32:00Z');
    expect(outcome.progressEntry).toContain('  - STORY-004: Export data as CSV (priority: 4)');
    expect(outcome.warnings).toEqual([]);
    expectValid(outcome);
    const spec = parseSpec(outcome.specText, 'spec.md');
    expect(spec.stories.map((s) => s.id)).toEqual([
      'STORY-001',
      'STORY-002',
      'STORY-003',
      'STORY-004',
    ]);
    expect(spec.amendments).toMatchObject([{ id: 'AMD-001', type: 'add' }]);
  });

  it('--insert-after gives a decimal id placed right after the story', () => {
    const first = addStory(filesOf(), {
      title: 'Trim whitespace',
      description: 'Inputs are trimmed',
      criteria: ['Leading spaces are removed'],
      insertAfter: 'STORY-002',
    });
    expect(first.storyIds).toEqual(['STORY-002.1']);
    const ids = (JSON.parse(first.prdText) as { userStories: { id: string }[] }).userStories;
    expect(ids.map((s) => s.id)).toEqual(['STORY-001', 'STORY-002', 'STORY-002.1', 'STORY-003']);
    expect(storyOf(first, 'STORY-002.1')?.priority).toBe(2);
    expectValid(first);
    const second = addStory(after(first), {
      title: 'Normalise case',
      description: 'Emails are lower-cased',
      criteria: ['Upper case is lowered'],
      insertAfter: 'STORY-002',
    });
    expect(second.storyIds).toEqual(['STORY-002.2']);
    expect(second.amendmentId).toBe('AMD-002');
    expect(second.warnings).toEqual([
      'STORY-002.1 already follow STORY-002: STORY-002.2 comes after them',
    ]);
    const order = (JSON.parse(second.prdText) as { userStories: { id: string }[] }).userStories;
    expect(order.map((s) => s.id)).toEqual([
      'STORY-001',
      'STORY-002',
      'STORY-002.1',
      'STORY-002.2',
      'STORY-003',
    ]);
    expectValid(second);
  });

  it('keeps a CRLF spec.md CRLF, and one without a final newline without one', () => {
    const crlf = SPEC.replaceAll('\n', '\r\n');
    const outcome = addStory(filesOf(crlf), { title: 'T', description: 'D', criteria: ['C'] });
    expect(outcome.specText.startsWith(crlf.trimEnd())).toBe(true);
    expect(outcome.specText.replaceAll('\r\n', '')).not.toContain('\n');
    expectValid(outcome);
    const bare = SPEC.trimEnd();
    const noFinal = addStory(filesOf(bare), { title: 'T', description: 'D', criteria: ['C'] });
    expect(noFinal.specText.endsWith('- [ ] C\n\n**Priority:** 4')).toBe(true);
  });

  it('keeps odd criteria text in sync between the two files', () => {
    const criteria = ['```', '# not a heading', '- [x] typed bullet', 'Ends with a period.'];
    const outcome = addStory(filesOf(), { title: '## T', description: '- d', criteria });
    expect(storyOf(outcome, 'STORY-004')?.acceptanceCriteria).toEqual(criteria);
    expectValid(outcome);
    const spec = parseSpec(outcome.specText, 'spec.md');
    expect(spec.stories.at(-1)?.acceptanceCriteria).toHaveLength(4);
  });

  it('warns when every story passes: the feature becomes incomplete', () => {
    const allPass = PRD.replace('"passes": false', '"passes": true');
    const outcome = addStory(filesOf(SPEC, allPass), {
      title: 'One more thing',
      description: 'Something else',
      criteria: ['It works'],
    });
    expect(outcome.warnings.join('\n')).toContain('all 3 stories pass');
    expectValid(outcome);
  });
});

describe('amend correct', () => {
  it('resets a passing story, records before/after, and restates it under the amendment', () => {
    const outcome = correctStory(filesOf(), {
      storyId: 'STORY-002',
      criteria: ['Email validated against RFC 5322', 'Typecheck passes'],
      reason: 'Email validation was underspecified',
    });
    expect(outcome.warnings[0]).toContain('STORY-002 passes: the correction resets it');
    expect(storyOf(outcome, 'STORY-002')).toMatchObject({
      passes: false,
      acceptanceCriteria: ['Email validated against RFC 5322', 'Typecheck passes'],
      amendment: {
        id: 'AMD-001',
        type: 'correct',
        changes: {
          acceptanceCriteria: {
            before: ['Email field is required', 'Typecheck passes'],
            after: ['Email validated against RFC 5322', 'Typecheck passes'],
          },
          passesReset: true,
        },
      },
    });
    expect(storyOf(outcome, 'STORY-002')?.notes).toBe('');
    // The original definition stays where it was; the correction supersedes it.
    expect(outcome.specText.startsWith(SPEC.trimEnd())).toBe(true);
    expect(outcome.specText).toContain(
      '| Acceptance Criteria | Email field is required; Typecheck passes |',
    );
    expect(outcome.specText).toContain('**Status Impact:** passes reset to false');
    expect(outcome.progressEntry).toContain('Status Reset: yes');
    expectValid(outcome);
  });

  it('names the stories that depend on the corrected one, and resets them on request', () => {
    const files = filesOf();
    const warned = correctStory(files, { storyId: 'STORY-001', title: 'Data table', reason: 'r' });
    expect(warned.warnings.join('\n')).toContain(
      'STORY-001 is a dependency for STORY-002 (passes: true)',
    );
    expect(storyOf(warned, 'STORY-002')?.passes).toBe(true);
    const reset = correctStory(files, {
      storyId: 'STORY-001',
      title: 'Data table',
      reason: 'r',
      resetDependents: true,
    });
    expect(storyOf(reset, 'STORY-002')?.passes).toBe(false);
    expect(storyOf(reset, 'STORY-001')?.title).toBe('Data table');
    expectValid(reset);
  });

  it('a story not passing keeps passes: false without a warning', () => {
    const outcome = correctStory(filesOf(), {
      storyId: 'STORY-003',
      description: 'Filters on several columns',
      reason: 'clarified',
    });
    expect(outcome.warnings).toEqual([]);
    expect(outcome.progressEntry).toContain('Status Reset: no');
    expectValid(outcome);
  });

  it('refuses an unknown story and a correction that changes nothing', () => {
    expect(() =>
      correctStory(filesOf(), { storyId: 'STORY-009', title: 'x', reason: 'r' }),
    ).toThrow('no active story STORY-009');
    expect(() =>
      correctStory(filesOf(), { storyId: 'STORY-003', title: 'Advanced filtering', reason: 'r' }),
    ).toThrow('nothing to correct');
  });
});

describe('amend remove', () => {
  it('descopes the story whole, drops it from prd.json and keeps its dependents', () => {
    const outcome = removeStory(filesOf(), { storyId: 'STORY-002', reason: 'Moved to issue #47' });
    expect(outcome.warnings[0]).toContain('STORY-002 blocks STORY-003 (passes: false)');
    const prd = JSON.parse(outcome.prdText) as { userStories: { id: string }[] };
    expect(prd.userStories.map((s) => s.id)).toEqual(['STORY-001', 'STORY-003']);
    expect(storyOf(outcome, 'STORY-003')).toMatchObject({ dependsOn: [], 'x-owner': 'team-a' });
    const spec = parseSpec(outcome.specText, 'spec.md');
    expect(spec.descoped).toMatchObject([{ storyId: 'STORY-002', amendmentId: 'AMD-001' }]);
    expect(spec.stories.map((s) => s.id)).toEqual(['STORY-001', 'STORY-003']);
    // Kept whole: the original definition's lines are all under Descoped Stories.
    const descoped = outcome.specText.slice(outcome.specText.indexOf('## Descoped Stories'));
    expect(descoped).toContain('#### STORY-002: Validate user input');
    expect(descoped).toContain('**I want to** get told about bad input');
    expect(descoped).toContain('- [ ] Email field is required');
    expect(descoped).toContain('**Status at removal:** passes: true');
    expect(outcome.progressEntry).toContain('Previous Status: passes: true');
    expectValid(outcome);
  });

  it('--with-dependents descopes the chain under one amendment', () => {
    const outcome = removeStory(filesOf(), {
      storyId: 'STORY-002',
      reason: 'Phase 2',
      withDependents: true,
    });
    expect(outcome.storyIds).toEqual(['STORY-002', 'STORY-003']);
    const spec = parseSpec(outcome.specText, 'spec.md');
    expect(spec.descoped.map((d) => d.storyId)).toEqual(['STORY-002', 'STORY-003']);
    expectValid(outcome);
  });

  it('never reuses ids: after a removal the next add gets a new story id and AMD id', () => {
    const removed = removeStory(filesOf(), { storyId: 'STORY-003', reason: 'not needed' });
    const added = addStory(after(removed), {
      title: 'Replacement',
      description: 'Another story',
      criteria: ['It works'],
    });
    expect(added.amendmentId).toBe('AMD-002');
    expect(added.storyIds).toEqual(['STORY-004']);
    expectValid(added);
    // Even with the amendment gone from spec.md, progress.txt still holds AMD-001 and AMD-002.
    const amnesiac = filesOf(
      SPEC,
      PRD,
      `${PROGRESS}\n${removed.progressEntry}\n${added.progressEntry}`,
    );
    expect(addStory(amnesiac, { title: 't', description: 'd', criteria: ['c'] }).amendmentId).toBe(
      'AMD-003',
    );
  });

  it('removes a story that an amendment added, and one that was corrected', () => {
    const added = addStory(filesOf(), { title: 'CSV', description: 'd', criteria: ['c'] });
    const corrected = correctStory(after(added), {
      storyId: 'STORY-004',
      criteria: ['c2'],
      reason: 'r',
    });
    const removed = removeStory(after(corrected), { storyId: 'STORY-004', reason: 'dropped' });
    expect(removed.amendmentId).toBe('AMD-003');
    const spec = parseSpec(removed.specText, 'spec.md');
    expect(spec.stories.map((s) => s.id)).not.toContain('STORY-004');
    expect(spec.amendments.map((a) => a.id)).toEqual(['AMD-001', 'AMD-002', 'AMD-003']);
    // The descoped copy is the corrected (active) definition.
    const descoped = removed.specText.slice(removed.specText.indexOf('## Descoped Stories'));
    expect(descoped).toContain('- [ ] c2');
    expectValid(removed);
  });
});
