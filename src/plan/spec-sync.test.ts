import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkAmendments, checkSpecSync, firstCriteriaDifference } from './spec-sync.js';
import { parseSpec } from './spec.js';
import type { Story, TaskList, TaskListFormat } from './types.js';

const fullSpec = parseSpec(
  readFileSync(new URL('../../test/fixtures/spec/full.md', import.meta.url), 'utf8'),
  '.ralph/feature-user-auth/spec.md',
);

function story(id: string, title: string, criteria: string[], extra: Partial<Story> = {}): Story {
  return {
    index: 0,
    id,
    hasId: true,
    title,
    description: '',
    acceptanceCriteria: criteria,
    priority: undefined,
    passes: false,
    notes: undefined,
    dependsOn: [],
    model: undefined,
    category: undefined,
    mcpServers: undefined,
    specRef: undefined,
    amendment: undefined,
    ...extra,
  };
}

function list(stories: Story[], format: TaskListFormat = 'prd-hybrid'): TaskList {
  return {
    format,
    name: undefined,
    description: undefined,
    branchName: undefined,
    defaultModel: undefined,
    stories: stories.map((s, index) => ({ ...s, index })),
  };
}

/** The task list that full.md generates. */
function inSync(): Story[] {
  return [
    story('STORY-001', 'Sign in with email', [
      'Login form has email and password fields',
      'Wrong password shows an error message without revealing which field was wrong',
      'Typecheck passes',
    ]),
    story('STORY-002', 'Sign out', [
      'Sign-out button in the header',
      'Session cookie is cleared',
      'Unit tests pass',
    ]),
    story(
      'STORY-002.1',
      'Reset password by email',
      ['"Forgot password" link on the login form', 'Reset email is sent within a minute'],
      { amendment: { id: 'AMD-001', type: 'add', timestamp: '2026-01-09T14:32:00Z' } },
    ),
  ];
}

const summary = (stories: Story[]): [string, string | undefined][] =>
  checkSpecSync(fullSpec, list(stories)).map((f) => [f.severity, f.storyId]);

describe('checkSpecSync: sync scenarios', () => {
  it('passes when spec.md and prd.json agree', () => {
    expect(checkSpecSync(fullSpec, list(inSync()))).toEqual([]);
  });

  it('ignores passes, notes, title case and whitespace', () => {
    const stories = inSync().map((s) => ({ ...s, passes: true, notes: 'agent notes' }));
    stories[0] = { ...stories[0]!, title: '  SIGN IN   with Email ' };
    stories[1] = {
      ...stories[1]!,
      acceptanceCriteria: [
        'Sign-out  button in\tthe header ',
        'Session cookie is cleared',
        'Unit tests pass',
      ],
    };
    expect(checkSpecSync(fullSpec, list(stories))).toEqual([]);
  });

  it('reports a story in spec.md that prd.json lacks', () => {
    const findings = checkSpecSync(fullSpec, list(inSync().slice(0, 2)));
    expect(findings).toEqual([
      {
        severity: 'error',
        storyId: 'STORY-002.1',
        message: 'STORY-002.1 in spec.md not found in prd.json',
        hint: 'run `ralph sync` to regenerate prd.json from spec.md (or add the story to prd.json)',
        location: { file: '.ralph/feature-user-auth/spec.md', line: 83 },
      },
    ]);
  });

  it('reports changed acceptance criteria with the first difference', () => {
    const stories = inSync();
    stories[1] = {
      ...stories[1]!,
      acceptanceCriteria: ['Sign-out button in the header', 'Cookie cleared'],
    };
    const [finding, ...rest] = checkSpecSync(fullSpec, list(stories));
    expect(rest).toEqual([]);
    expect(finding?.severity).toBe('error');
    expect(finding?.storyId).toBe('STORY-002');
    expect(finding?.message).toBe(
      'STORY-002 acceptance criteria differ between spec.md and prd.json: ' +
        'criterion 2: spec.md "Session cookie is cleared", prd.json "Cookie cleared"',
    );
  });

  it('treats criteria order, missing and extra criteria as differences', () => {
    expect(firstCriteriaDifference(['a', 'b'], ['b', 'a'])).toBe(
      'criterion 1: spec.md "a", prd.json "b"',
    );
    expect(firstCriteriaDifference(['a', 'b'], ['a'])).toBe(
      'criterion 2: spec.md "b", prd.json (none)',
    );
    expect(firstCriteriaDifference(['a'], ['a', 'c'])).toBe(
      'criterion 2: spec.md (none), prd.json "c"',
    );
    expect(firstCriteriaDifference(['Café'], ['Cafe\u0301'])).toBeUndefined();
    expect(firstCriteriaDifference(['x'.repeat(200)], ['y'])).toContain('…"');
  });

  it('warns about a different title', () => {
    const stories = inSync();
    stories[0] = { ...stories[0]!, title: 'Log in' };
    const findings = checkSpecSync(fullSpec, list(stories));
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['warning', 'STORY-001 title differs: spec.md "Sign in with email", prd.json "Log in"'],
    ]);
  });

  it('warns about an orphaned open story and errors on an orphaned completed one', () => {
    const open = story('STORY-009', 'Extra', []);
    expect(checkSpecSync(fullSpec, list([...inSync(), open]))).toEqual([
      {
        severity: 'warning',
        storyId: 'STORY-009',
        message: 'STORY-009 in prd.json (passes: false) not found in spec.md (orphaned story)',
        hint: 'add it to spec.md, or drop it with `ralph sync --confirm-orphan-removal`',
      },
    ]);
    const done = { ...open, passes: true };
    expect(checkSpecSync(fullSpec, list([...inSync(), done]))).toEqual([
      {
        severity: 'error',
        storyId: 'STORY-009',
        message:
          'STORY-009 in prd.json (passes: true) not found in spec.md — COMPLETED WORK WOULD BE LOST',
        hint: 'add STORY-009 back to spec.md to keep the completed work, or remove it from prd.json deliberately',
      },
    ]);
  });

  it('names feature_list.json, or the file it is told', () => {
    const findings = checkSpecSync(fullSpec, list([], 'feature-list-object'));
    expect(findings[0]?.message).toBe('STORY-001 in spec.md not found in feature_list.json');
    const named = checkSpecSync(fullSpec, list([]), { taskListFile: 'tasks/prd.json' });
    expect(named[0]?.message).toBe('STORY-001 in spec.md not found in tasks/prd.json');
  });

  it('returns one warning for a task list without ids', () => {
    const idless = inSync().map((s, i) => ({ ...s, id: `#${i + 1}`, hasId: false }));
    const findings = checkSpecSync(fullSpec, list(idless, 'feature-list-array'));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.severity).toBe('warning');
    expect(findings[0]?.message).toContain('sync not checked');
  });

  it('checks the items with ids and warns about the rest when only some have ids', () => {
    const stories = [...inSync(), story('#4', 'No id', [], { hasId: false })];
    expect(checkSpecSync(fullSpec, list(stories))).toEqual([
      {
        severity: 'warning',
        message: 'item #4 in prd.json has no id, so it cannot be matched with spec.md',
      },
    ]);
  });

  it('returns one error, not a flood of orphans, when spec.md has no stories section', () => {
    const bare = parseSpec('# T\n\n## Problem Statement\n', 'spec.md');
    const findings = checkSpecSync(bare, list(inSync().map((s) => ({ ...s, passes: true }))));
    expect(findings.map((f) => f.severity)).toEqual(['error', 'warning']);
    expect(findings[0]?.message).toBe(
      'spec.md has no User Stories section, so prd.json cannot be checked against it',
    );
    expect(findings[1]?.message).toContain('AMD-001');
  });
});

describe('checkSpecSync: amendment checks', () => {
  const withAmendments = (...lines: string[]): string =>
    [
      '## User Stories',
      '### STORY-001: A',
      'Acceptance Criteria:',
      '- a',
      '## Amendments',
      ...lines,
    ].join('\n');

  it('errors on a duplicate AMD id and accepts unique ones', () => {
    const dup = parseSpec(
      withAmendments('### AMD-001: One', '### AMD-002: Two', '### AMD-001: Again'),
      'spec.md',
    );
    expect(checkAmendments(dup, list([]))).toEqual([
      {
        severity: 'error',
        message: "AMD-001 appears more than once in spec.md's Amendments (lines 6 and 8)",
        hint: 'amendment ids are never reused: give the later amendment the next free AMD number',
        location: { file: 'spec.md', line: 8 },
      },
    ]);
    const unique = parseSpec(withAmendments('### AMD-001: One', '### AMD-002: Two'), 'spec.md');
    expect(checkAmendments(unique, list([]))).toEqual([]);
  });

  it('warns about an amendment id that spec.md does not record', () => {
    const stories = inSync();
    stories[2] = { ...stories[2]!, amendment: { id: 'AMD-007', type: 'add' } };
    expect(summary(stories)).toEqual([['warning', 'STORY-002.1']]);
    expect(checkSpecSync(fullSpec, list(stories))[0]?.message).toBe(
      "STORY-002.1 in prd.json refers to AMD-007, which spec.md's Amendments section does not record",
    );
  });

  it('accepts a removed story kept under Descoped Stories', () => {
    const removed = story('STORY-003', 'Profile page', [], {
      passes: true,
      amendment: { id: 'AMD-002', type: 'remove' },
    });
    expect(checkSpecSync(fullSpec, list([...inSync(), removed]))).toEqual([]);
  });

  it('errors on a removed story missing from Descoped Stories', () => {
    const removed = story('STORY-004', 'Gone', [], {
      amendment: { id: 'AMD-002', type: 'remove' },
    });
    const findings = checkSpecSync(fullSpec, list([...inSync(), removed]));
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      [
        'error',
        'STORY-004 was removed by AMD-002 in prd.json but is not under Descoped Stories in spec.md',
      ],
    ]);
  });

  it('reports a removed story that spec.md still lists as active once, at its line', () => {
    const stories = inSync();
    stories[0] = { ...stories[0]!, amendment: { id: 'AMD-002', type: 'remove' } };
    const findings = checkSpecSync(fullSpec, list(stories));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.message).toBe(
      'STORY-001 was removed by AMD-002 in prd.json but is not under Descoped Stories in spec.md ' +
        '(it is still an active story at line 21)',
    );
    expect(findings[0]?.location).toEqual({ file: '.ralph/feature-user-auth/spec.md', line: 21 });
  });

  it('warns about a descoped story still active in prd.json, whatever its passes', () => {
    for (const passes of [false, true]) {
      const active = story('STORY-003', 'Profile page', [], { passes });
      const findings = checkSpecSync(fullSpec, list([...inSync(), active]));
      expect(findings.map((f) => [f.severity, f.message])).toEqual([
        ['warning', 'STORY-003 was descoped by AMD-002 in spec.md but is still active in prd.json'],
      ]);
    }
  });
});
