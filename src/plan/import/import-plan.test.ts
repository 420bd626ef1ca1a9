import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RalphError } from '../../util/errors.js';
import { parseTaskList } from '../read.js';
import { importPlan, type ImportResult } from './import-plan.js';

const NOW = new Date('2026-01-09T12:00:00Z');
const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../../../test/fixtures/import/${name}`, import.meta.url));

interface OutStory {
  id: string;
  title: string;
  description: string;
  acceptanceCriteria: string[];
  priority: number;
  passes: boolean;
  dependsOn?: string[];
}

function imported(name: string): { result: ImportResult; stories: OutStory[] } {
  const result = importPlan(fixture(name), name, { now: NOW });
  // What validate reads: the import must come out as a valid ralph-hybrid prd.json.
  const document = parseTaskList(result.text, 'prd.json');
  expect(document.taskList.format).toMatch(/^prd-(hybrid|snarktank)$/);
  const stories = (JSON.parse(result.text) as { userStories: OutStory[] }).userStories;
  return { result, stories };
}

const summary = (stories: OutStory[]) =>
  stories.map((story) => [story.id, story.title, story.priority, story.passes]);

describe('importPlan: Markdown styles', () => {
  it('snarktank PRD (### US-NNN, **Description:**, **Acceptance Criteria:**)', () => {
    const { result, stories } = imported('snarktank-task-priority-prd.md');
    expect(result.style).toBe('story headings (US)');
    expect(summary(stories)).toEqual([
      ['US-001', 'Add priority field to database', 1, false],
      ['US-002', 'Display priority indicator on task cards', 2, false],
      ['US-003', 'Add priority selector to task edit', 3, false],
      ['US-004', 'Filter tasks by priority', 4, false],
    ]);
    expect(stories[0]?.description).toBe(
      'As a developer, I need to store task priority so it persists across sessions.',
    );
    expect(stories[0]?.acceptanceCriteria).toEqual([
      "Add priority column to tasks table: 'high' | 'medium' | 'low' (default 'medium')",
      'Generate and run migration successfully',
      'Typecheck passes',
    ]);
    // Functional Requirements, Non-Goals, Success Metrics and Open Questions add nothing.
    expect(stories).toHaveLength(4);
  });

  it('Ralph Hybrid spec.md: front matter skipped, Success Criteria not stories', () => {
    const { stories } = imported('hybrid-f21-sync-spec.md');
    expect(stories.map((story) => story.id)).toEqual(
      Array.from({ length: 9 }, (_, i) => `STORY-00${i + 1}`),
    );
    expect(stories[0]?.title).toBe('Remove branch.sh and init command');
    expect(stories[0]?.description).toMatch(/^As a Ralph user I want to not have to/);
    expect(stories[0]?.acceptanceCriteria[0]).toBe('`lib/branch.sh` file deleted');
    expect(stories.every((story) => !story.passes)).toBe(true);
  });

  it('a spec with Amendments and Descoped Stories: ADD stories carry their amendment, descoped ones are left out', () => {
    const { stories } = imported('hybrid-spec-amendments.md');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'Export button', 1, true],
      ['STORY-003', 'Filter rows', 2, false],
      ['STORY-004', 'Export data as CSV', 3, false],
    ]);
    expect(stories[2]).toMatchObject({
      amendment: { id: 'AMD-001', type: 'add', timestamp: '2026-01-09T14:32:00Z' },
    });
    expect(stories[0]).not.toHaveProperty('amendment');
  });

  it('a spec whose stories have only a sentence gets a warning, not invented criteria', () => {
    const { result, stories } = imported('hybrid-test-feature-spec.md');
    expect(stories).toHaveLength(5);
    expect(stories[0]?.acceptanceCriteria).toEqual([]);
    expect(result.warnings[0]).toMatch(/STORY-001 has no acceptance criteria/);
  });

  it('story titles written as user stories, criteria under a plain label', () => {
    const { stories } = imported('hybrid-story-as-title.md');
    expect(stories.map((story) => story.title)).toEqual([
      'As a user, I want to create a habit',
      'As a user, I want to tick off a habit for today',
      'As a user, I want to see my streaks',
    ]);
    expect(stories[1]?.acceptanceCriteria).toHaveLength(3);
  });

  it('### Task N: with checkbox steps; ids given by position', () => {
    const { result, stories } = imported('superpowers-task-steps-plan.md');
    expect(result.style).toBe('task headings');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'CSV serializer', 1, false],
      ['STORY-002', 'JSON serializer', 2, false],
      ['STORY-003', 'Export menu entry', 3, false],
    ]);
    expect(stories[0]?.acceptanceCriteria[0]).toBe(
      'Step 1: Write a failing test for quoting commas and quotes in titles',
    );
  });

  it('checked steps pass the task; fenced code and a constraints checklist add nothing', () => {
    const { stories } = imported('superpowers-done-steps-with-code.md');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'Order the backup after migrations', 1, true],
      ['STORY-002', 'Verify the archive after writing it', 2, false],
    ]);
    expect(stories[0]?.acceptanceCriteria).toEqual([
      'Step 1: Write the failing test',
      'Step 2: Move the backup job after the migrate job',
    ]);
  });

  it('labelled bullets: priority words, status boxes, dependencies', () => {
    const { stories } = imported('story-bullets-status.md');
    expect(summary(stories)).toEqual([
      ['STORY-007', 'Clamp the zoom level before rendering', 1, true],
      ['STORY-008', 'Debounce the resize handler', 2, false],
      ['STORY-009', 'Cache decoded tiles', 3, false],
    ]);
    expect(stories[1]?.dependsOn).toEqual(['STORY-007']);
    expect(stories[0]?.description).toMatch(/^Zooming past the last level/);
  });

  it('## Priority N groups of numbered headings; Definition of Done is not a story', () => {
    const { stories } = imported('priority-groups-numbered.md');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'Cap the position size', 0, true],
      ['STORY-002', 'Handle missing price data', 0, false],
      ['STORY-003', 'Decide whether two bots may share a wallet', 1, false],
    ]);
  });

  it('a flat checklist: one story per item, nested items as criteria, groups as priority', () => {
    const { result, stories } = imported('flat-checklist-priorities.md');
    expect(result.style).toBe('checklist items');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'Make `--help` list every command', 1, true],
      ['STORY-002', 'Exit 2 on an unknown flag', 1, false],
      ['STORY-003', 'Colour output only on a TTY', 2, false],
      ['STORY-004', 'Honour NO_COLOR', 2, false],
    ]);
    expect(stories[1]?.acceptanceCriteria).toEqual([
      'print the closest known flag',
      'do not print a stack trace',
    ]);
    expect(JSON.parse(result.text)).toMatchObject({ description: 'Fix plan for the CLI' });
  });

  it('a real checkbox plan: every box a story, checked ones passing, Success Metrics left out', () => {
    const { result, stories } = imported('hybrid-implementation-plan.md');
    expect(result.style).toBe('checklist items');
    // 127 boxes in the file, 9 of them under "## Success Metrics".
    expect(stories).toHaveLength(118);
    expect(result.passing).toBe(14);
    expect(stories[0]?.title).toBe('Update main script name: `ralph` → `ralph-hybrid`');
    expect(stories.some((story) => story.title.startsWith('Can run with any provider'))).toBe(
      false,
    );
  });

  it('### Step N: headings of a plan, with labelled bullets (ralph-tui)', () => {
    const { result, stories } = imported('ralph-tui-engine-plan-steps.md');
    expect(result.style).toBe('step headings');
    expect(stories.map((story) => story.title)).toEqual([
      'Verification Gates',
      'Auto-Commit Defaults',
      'Model Escalation Strategy',
      'Cross-Iteration Context',
      'Completion Detection Hardening',
      'Acceptance Criteria Validation',
      'Cost Tracking',
      'First-Class Parallel Execution',
    ]);
    expect(stories[1]?.description).toMatch(/^Make `autoCommit: true` the default/);
  });

  it('a "# Step 1: …" title over a flat task checklist: the items are the stories (ralph-tui)', () => {
    const { result, stories } = imported('ralph-tui-verification-todo.md');
    expect(result.style).toBe('checklist items');
    expect(stories).toHaveLength(10);
    expect(stories[9]?.title).toBe('Run `bun run typecheck`, `bun run build`, `bun test`');
  });

  it('US headings under phase headings, inline **As a** … **I want** paragraphs', () => {
    const { stories } = imported('us-phases-inline-as-a.md');
    expect(stories.map((story) => story.id)).toEqual(['US-001', 'US-002']);
    expect(stories[0]?.description).toMatch(/^As a team admin, I want the well-known/);
    expect(stories[1]?.description).toMatch(/^As a member, I want to sign in/);
    expect(stories[1]?.acceptanceCriteria).toHaveLength(3);
  });

  it('**Description**: with the colon outside the bold, and non-Latin text', () => {
    const { stories } = imported('us-description-colon-outside.md');
    expect(summary(stories)).toEqual([
      ['US-001', '统计基线采样', 1, false],
      ['US-002', '优化后回写指标', 2, false],
    ]);
    expect(stories[0]?.description).toBe(
      '作为写作者，我希望在优化前自动得到基线指标，以便明确改写目标。',
    );
    expect(stories[0]?.acceptanceCriteria).toEqual([
      '采样结果写入 `baseline.json`',
      '异常值被标记',
    ]);
  });
});

describe('importPlan: JSON', () => {
  it('requirements[] with keys, summaries, criterion objects, P0 and status', () => {
    const { stories, result } = imported('requirements.json');
    expect(result.style).toBe('JSON "requirements"');
    expect(summary(stories)).toEqual([
      ['REQ-1', 'Send a reminder 3 days before the due date', 1, true],
      ['REQ-2', 'Stop reminders once the invoice is paid', 2, false],
    ]);
    expect(stories[0]?.acceptanceCriteria).toEqual(['Email sent at 09:00 local time']);
    expect(stories[1]?.dependsOn).toEqual(['REQ-1']);
  });

  it('tasks[] one level down, done/completed as passes', () => {
    const { stories } = imported('tasks-nested.json');
    expect(summary(stories)).toEqual([
      ['STORY-001', 'Add a search box', 1, false],
      ['STORY-002', 'Dark mode', 2, true],
    ]);
  });

  it('a passes field of the wrong type is read as open, with a warning', () => {
    const text = '{"tasks":[{"title":"a","passes":"yes","steps":["x"]}]}';
    const result = importPlan(Buffer.from(text), 'x.json', { now: NOW });
    expect(result.passing).toBe(0);
    expect(result.warnings).toEqual([expect.stringMatching(/tasks\[0\]\.passes is "yes"/)]);
  });
});

describe('importPlan: refusals', () => {
  const refusal = (bytes: Buffer, name: string, format?: 'markdown' | 'json'): RalphError => {
    try {
      importPlan(bytes, name, { now: NOW, format });
    } catch (error) {
      if (error instanceof RalphError) return error;
      throw error;
    }
    throw new Error(`${name} was imported`);
  };

  it('a document with no tasks (its only checklist is Success Criteria, a fenced example)', () => {
    const error = refusal(fixture('no-tasks.md'), 'no-tasks.md');
    expect(error.message).toBe('no-tasks.md: no tasks found, nothing to import');
    expect(error.hint).toMatch(/### STORY-001/);
    expect(error.exitCode).toBe(2);
  });

  it('a narrative PRD with numbered sections and no tasks (ralph-tui)', () => {
    const error = refusal(fixture('ralph-tui-parallel-prd-narrative.md'), 'prd.md');
    expect(error.message).toBe('prd.md: no tasks found, nothing to import');
  });

  it('a PDF, a binary, non-UTF-8 text and an empty file', () => {
    expect(refusal(fixture('not-a-prd.pdf'), 'prd.pdf').message).toMatch(/is a PDF/);
    expect(refusal(fixture('binary.docx'), 'prd.docx').message).toMatch(/is a binary file/);
    expect(
      refusal(Buffer.from([0x2d, 0x20, 0x5b, 0x20, 0x5d, 0x20, 0xff]), 'l.md').message,
    ).toMatch(/not UTF-8/);
    expect(refusal(Buffer.from('  \n'), 'e.md').message).toMatch(/is empty/);
  });

  it('JSON that does not parse, and JSON without a task list', () => {
    expect(refusal(Buffer.from('{"tasks": ['), 'a.json').code).toBe('INVALID_JSON');
    expect(refusal(Buffer.from('{"name": "x"}'), 'b.json').message).toMatch(/no list of tasks/);
    expect(refusal(Buffer.from('- [ ] a task'), 'c.txt', 'json').code).toBe('INVALID_JSON');
  });

  it('an id ralph refuses is replaced; a repeated id keeps the first story', () => {
    const text = '### US-001: first\n- [ ] a\n### US-001: again\n- [ ] b\n';
    const result = importPlan(Buffer.from(text), 'd.md', { now: NOW });
    expect(result.stories).toBe(1);
    expect(result.warnings).toEqual([expect.stringMatching(/US-001 appears twice/)]);
  });
});
