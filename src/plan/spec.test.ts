import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { normaliseSectionName, parseSpec, structureProblems } from './spec.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../test/fixtures/spec/${name}`, import.meta.url), 'utf8');

const md = (...lines: string[]): string => lines.join('\n') + '\n';

describe('parseSpec on a full Ralph Hybrid spec', () => {
  const spec = parseSpec(fixture('full.md'), 'spec.md');

  it('reads front matter, title and sections', () => {
    expect(spec.file).toBe('spec.md');
    expect(spec.created).toBe('2026-01-08T10:00:00Z');
    expect(spec.title).toBe('User Authentication');
    expect(spec.sections).toEqual([
      'problem statement',
      'success criteria',
      'user stories',
      'out of scope',
      'open questions',
      'amendments',
      'descoped stories',
    ]);
  });

  it('reads active stories, with amendment stories flagged and fenced examples ignored', () => {
    expect(spec.stories.map((s) => [s.id, s.title, s.line, s.amendmentId])).toEqual([
      ['STORY-001', 'Sign in with email', 21, undefined],
      ['STORY-002', 'Sign out', 47, undefined],
      ['STORY-002.1', 'Reset password by email', 83, 'AMD-001'],
    ]);
    expect(spec.stories[0]?.acceptanceCriteria).toEqual([
      'Login form has email and password fields',
      'Wrong password shows an error message without revealing which field was wrong',
      'Typecheck passes',
    ]);
    expect(spec.stories[1]?.acceptanceCriteria).toEqual([
      'Sign-out button in the header',
      'Session cookie is cleared',
      'Unit tests pass',
    ]);
    expect(spec.stories[2]?.acceptanceCriteria).toEqual([
      '"Forgot password" link on the login form',
      'Reset email is sent within a minute',
    ]);
  });

  it('reads amendments and descoped stories (descoped are not active)', () => {
    expect(spec.amendments).toEqual([
      {
        id: 'AMD-001',
        title: 'Password reset',
        timestamp: '2026-01-09T14:32:00Z',
        type: 'add',
        line: 77,
      },
      {
        id: 'AMD-002',
        title: 'Remove profile page',
        timestamp: '2026-01-09T16:00:00Z',
        type: 'remove',
        line: 94,
      },
    ]);
    expect(spec.descoped).toEqual([
      { storyId: 'STORY-003', title: 'Profile page', amendmentId: 'AMD-002', line: 105 },
    ]);
    expect(spec.stories.some((s) => s.id === 'STORY-003')).toBe(false);
  });

  it('has no structure problems', () => {
    expect(structureProblems(spec)).toEqual([]);
  });

  it('gives the same result for CRLF and CR line endings and a BOM', () => {
    const text = fixture('full.md');
    expect(parseSpec(text.replace(/\n/g, '\r\n'), 'spec.md')).toEqual(spec);
    expect(parseSpec('\uFEFF' + text.replace(/\n/g, '\r'), 'spec.md')).toEqual(spec);
  });
});

describe('parseSpec details', () => {
  it('reads a minimal spec with US- ids and a plain label', () => {
    const spec = parseSpec(fixture('minimal.md'), 'x/spec.md');
    expect(spec.created).toBeUndefined();
    expect(spec.stories).toEqual([
      {
        id: 'US-001',
        title: 'Only story',
        line: 5,
        acceptanceCriteria: ['it works'],
        amendmentId: undefined,
      },
    ]);
  });

  it('ignores story headings inside ~~~ fences, longer fences and HTML comments', () => {
    const spec = parseSpec(
      md(
        '## User Stories',
        '~~~',
        '### STORY-901: tilde',
        '~~~',
        '````md',
        '```',
        '### STORY-902: inner fence does not close the outer one',
        '```',
        '````',
        '<!--',
        '### STORY-903: commented out',
        '-->',
        '### STORY-001: Real',
      ),
      'spec.md',
    );
    expect(spec.stories.map((s) => s.id)).toEqual(['STORY-001']);
  });

  it('reports a code fence that is never closed and hides what follows it', () => {
    const spec = parseSpec(md('## User Stories', '```', '### STORY-001: hidden'), 'spec.md');
    expect(spec.stories).toEqual([]);
    expect(spec.anomalies).toEqual([
      {
        severity: 'warning',
        message: 'code fence is never closed',
        location: { file: 'spec.md', line: 2 },
      },
    ]);
  });

  it('keeps unicode titles and criteria', () => {
    const spec = parseSpec(
      md(
        '# Fonctionnalité 日本語',
        '## User Stories',
        '### STORY-001: Café — crème brûlée 🍮',
        '**Acceptance Criteria:**',
        '- [ ] Ünïcödé survives',
      ),
      'spec.md',
    );
    expect(spec.title).toBe('Fonctionnalité 日本語');
    expect(spec.stories[0]?.title).toBe('Café — crème brûlée 🍮');
    expect(spec.stories[0]?.acceptanceCriteria).toEqual(['Ünïcödé survives']);
  });

  it('accepts id forms and separators', () => {
    const spec = parseSpec(
      md(
        '## Stories',
        '### FEAT-12.3.4 - Dashed title',
        '### US-002',
        '### STORY-003:No space',
        '### Story 4: no id',
      ),
      'spec.md',
    );
    expect(spec.stories.map((s) => [s.id, s.title])).toEqual([
      ['FEAT-12.3.4', 'Dashed title'],
      ['US-002', ''],
      ['STORY-003', 'No space'],
    ]);
    expect(spec.anomalies.map((a) => [a.severity, a.location?.line])).toContainEqual([
      'warning',
      5,
    ]);
  });

  it('reads criteria label variants, numbered lists, and stops at labels, headings and prose', () => {
    const spec = parseSpec(
      md(
        '## User Stories',
        '### STORY-001: Bold with colon outside',
        '**Acceptance Criteria**:',
        '1. first',
        '2) second',
        '',
        '- [X] third after a blank line',
        '* star',
        '+ plus',
        '**Priority:** 1',
        '- not a criterion',
        '### STORY-002: Prose ends the list',
        '- before the label is not a criterion',
        'Acceptance Criteria',
        '- [ ] only',
        'Some closing prose.',
        '- not a criterion',
        '### STORY-003: Heading ends the list',
        '#### Acceptance Criteria',
        '- one',
        '#### Technical Notes',
        '- not a criterion',
      ),
      'spec.md',
    );
    expect(spec.stories.map((s) => s.acceptanceCriteria)).toEqual([
      ['first', 'second', 'third after a blank line', 'star', 'plus'],
      ['only'],
      ['one'],
    ]);
  });

  it('lets a CORRECT amendment restate a story and drops stories under a REMOVE amendment', () => {
    const spec = parseSpec(
      md(
        '## User Stories',
        '### STORY-001: Old',
        'Acceptance Criteria:',
        '- old',
        '### STORY-002: Gone',
        'Acceptance Criteria:',
        '- x',
        '## Amendments',
        '### AMD-001: Fix (2026-01-09T15:10:00Z)',
        '**Type:** CORRECT',
        '#### STORY-001: New',
        'Acceptance Criteria:',
        '- new',
        '### AMD-002: Drop',
        '**Type**: remove',
        '#### STORY-002: Gone',
      ),
      'spec.md',
    );
    expect(spec.stories.map((s) => [s.id, s.title, s.acceptanceCriteria, s.amendmentId])).toEqual([
      ['STORY-001', 'New', ['new'], 'AMD-001'],
      ['STORY-002', 'Gone', ['x'], undefined],
    ]);
    expect(spec.amendments.map((a) => [a.id, a.type, a.timestamp])).toEqual([
      ['AMD-001', 'correct', '2026-01-09T15:10:00Z'],
      ['AMD-002', 'remove', undefined],
    ]);
    expect(spec.anomalies).toEqual([]);
  });

  it('reports a story defined twice and a story that is both active and descoped', () => {
    const spec = parseSpec(
      md(
        '## User Stories',
        '### STORY-001: A',
        'Acceptance Criteria:',
        '- a',
        '### STORY-001: A again',
        '### STORY-002: B',
        'Acceptance Criteria:',
        '- b',
        '## Descoped Stories',
        '### STORY-002: B (Removed by AMD-004)',
      ),
      'spec.md',
    );
    expect(spec.stories.map((s) => s.id)).toEqual(['STORY-001']);
    expect(spec.descoped).toEqual([
      { storyId: 'STORY-002', title: 'B', amendmentId: 'AMD-004', line: 10 },
    ]);
    expect(spec.anomalies.map((a) => [a.severity, a.message])).toEqual([
      ['error', 'STORY-001 is defined twice (lines 2 and 5)'],
      ['error', 'STORY-002 is both an active story (line 6) and under Descoped Stories (line 10)'],
    ]);
  });

  it('warns about a story without acceptance criteria', () => {
    const spec = parseSpec(md('## User Stories', '### STORY-001: Empty'), 'spec.md');
    expect(spec.anomalies).toEqual([
      {
        severity: 'warning',
        message: 'STORY-001 has no acceptance criteria',
        location: { file: 'spec.md', line: 2 },
      },
    ]);
  });

  it('treats an unterminated front matter block as body text', () => {
    const spec = parseSpec(md('---', 'created: x', '# Title'), 'spec.md');
    expect(spec.created).toBeUndefined();
    expect(spec.title).toBe('Title');
  });
});

describe('structureProblems', () => {
  it('makes a missing User Stories section an error and the other sections warnings', () => {
    const problems = structureProblems(parseSpec(md('just text'), 'spec.md'));
    expect(problems.map((p) => [p.severity, p.message])).toEqual([
      ['error', 'spec.md has no "User Stories" section'],
      ['warning', 'spec.md has no "Problem Statement" section'],
      ['warning', 'spec.md has no "Success Criteria" section'],
      ['warning', 'spec.md has no "Out of Scope" section (recommended)'],
      ['warning', 'spec.md has no "# " title'],
    ]);
  });

  it('accepts normalised section names', () => {
    const spec = parseSpec(
      md(
        '# T',
        '## 1. **Problem Statement:**',
        '## success   criteria',
        '## Stories',
        '### US-001: x',
        'Acceptance Criteria:',
        '- y',
        '## Out of Scope ##',
      ),
      'spec.md',
    );
    expect(structureProblems(spec)).toEqual([]);
    expect(normaliseSectionName(' 2) `User`  _Stories_: ')).toBe('user stories');
  });
});
