import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusFiles, corpusPath, describeCorpus } from '../../test/corpus.js';
import { parseTaskList, readTaskListFile } from './read.js';
import type { TaskListFormat } from './types.js';

const read = (name: string) => parseTaskList(readFileSync(corpusPath('plans', name), 'utf8'), name);

const expected: Record<string, [TaskListFormat, number, number]> = {
  'agentic-loop-prd.json': ['prd-hybrid', 1, 1],
  'appointment-feature-list.json': ['feature-list-object', 36, 5],
  'ccextractor-prd.json': ['feature-list-array', 8, 2],
  'fleet-e2e-toy-features.json': ['feature-list-array', 3, 3],
  'freeyt-features.json': ['feature-list-object', 7, 3],
  'hybrid-33-archived-complete.json': ['prd-hybrid', 23, 23],
  'hybrid-33-midrun.json': ['prd-hybrid', 23, 12],
  'hybrid-526-oauth.json': ['prd-hybrid', 22, 3],
  'hybrid-decimal-ids-current.json': ['prd-hybrid', 4, 2],
  'hybrid-decimal-ids-unsorted.json': ['prd-hybrid', 4, 0],
  'hybrid-f21-sync.json': ['prd-hybrid', 9, 9],
  'hybrid-test-project.json': ['prd-hybrid', 5, 0],
  'kasmproxy-features.json': ['feature-list-object', 8, 8],
  'magic-tower-feature-list-early.json': ['feature-list-array', 174, -1],
  'magic-tower-feature-list-late.json': ['feature-list-array', 174, -1],
  'mathweb-feature-list.json': ['feature-list-array', 216, -1],
  'mini-jwt-feature-list.json': ['feature-list-object', 38, -1],
  'ralph-cli-sandboxed-prd.json': ['feature-list-array', 4, 4],
  'ralph-tui-conflict-prd.json': ['prd-snarktank', 4, 0],
  'ralph-tui-sample-prd.json': ['prd-snarktank', 2, 0],
  'ralph-tui-test-prd.json': ['prd-snarktank', 5, -1],
  'ralph-ultra-prd.json': ['prd-snarktank', 12, 8],
  'ralphx-prd.json': ['prd-hybrid', 7, -1],
  'snarktank-prd-example.json': ['prd-snarktank', 4, 0],
  'vibe-kanban-prd.json': ['prd-snarktank', 4, -1],
  'yisu-prd-zh.json': ['prd-hybrid', 7, -1],
};

describeCorpus('parseTaskList on the corpus', () => {
  it('covers every corpus file', () => {
    expect(corpusFiles('plans', '.json')).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('reads %s', (name, [format, total, passing]) => {
    const { taskList } = read(name);
    expect(taskList.format).toBe(format);
    expect(taskList.stories).toHaveLength(total);
    if (passing >= 0) expect(taskList.stories.filter((s) => s.passes)).toHaveLength(passing);
    taskList.stories.forEach((story, index) => {
      expect(story.index).toBe(index);
      expect(story.title).not.toBe('');
    });
  });

  it('maps a hybrid story field by field', () => {
    const story = read('hybrid-526-oauth.json').taskList.stories[0]!;
    expect(story).toMatchObject({ id: 'STORY-001', hasId: true, priority: 1, dependsOn: [] });
    expect(story.acceptanceCriteria.length).toBeGreaterThan(0);
    expect(read('hybrid-526-oauth.json').taskList.stories.some((s) => s.mcpServers)).toBe(true);
  });

  it('reads a missing passes field as open (ralph-tui-sample-prd.json)', () => {
    const { taskList } = read('ralph-tui-sample-prd.json');
    expect(taskList.stories.map((s) => s.passes)).toEqual([false, false]);
    expect(taskList.name).toBe('Sample Feature');
    expect(taskList.branchName).toBe('feature/sample-feature');
    expect(taskList.stories[1]!.dependsOn).toEqual(['US-001']);
  });

  it('synthesises #1, #2… for items without ids', () => {
    const stories = read('magic-tower-feature-list-late.json').taskList.stories;
    expect(stories[0]).toMatchObject({ id: '#1', hasId: false, priority: undefined });
    expect(stories[173]!.id).toBe('#174');
    expect(stories[0]!.acceptanceCriteria).toEqual(expect.any(Array));
    expect(stories[0]!.category).toEqual(expect.any(String));
  });

  it('takes a title from name, or else the first line of the description', () => {
    const fleet = read('fleet-e2e-toy-features.json').taskList.stories;
    expect(fleet[1]).toMatchObject({ title: 'Implement help command', description: '' });
    const sandboxed = read('ralph-cli-sandboxed-prd.json').taskList.stories[0]!;
    expect(sandboxed.title).toBe('Example: Project builds successfully');
    expect(sandboxed.acceptanceCriteria).toEqual([
      'Run the build command',
      'Verify no errors occur',
    ]);
  });

  it('reads "stories" and a slug id (ralphx-prd.json, agentic-loop-prd.json)', () => {
    const ralphx = read('ralphx-prd.json').taskList;
    expect(ralphx.stories[0]!.id).toBe('docs');
    expect(ralphx.name).toBe('ralph-next-self-audit');
    const agentic = read('agentic-loop-prd.json').taskList;
    expect(agentic.name).toBe('Activity Feed Smoke Test');
    expect(agentic.stories[0]).toMatchObject({ id: 'FEED-001', passes: true, dependsOn: [] });
  });

  it('reads dependencies as dependsOn (appointment-feature-list.json)', () => {
    const { taskList } = read('appointment-feature-list.json');
    expect(taskList.name).toBe('appointment_system');
    expect(taskList.stories[1]!.dependsOn).toEqual(['FEAT-001']);
    expect(taskList.stories[0]!.title).toBe('项目依赖配置与 Maven 设置');
  });

  it('normalises word priorities, with critical above high (mathweb-feature-list.json)', () => {
    const stories = read('mathweb-feature-list.json').taskList.stories;
    expect(stories.slice(0, 4).map((s) => s.priority)).toEqual([1, 1, 1, 0]);
    expect(new Set(stories.map((s) => s.priority))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('joins a list of notes into lines (yisu-prd-zh.json)', () => {
    const { taskList } = read('yisu-prd-zh.json');
    expect(taskList.stories[0]!.notes).toBe('这是结构 story，不做真实逻辑。');
    expect(taskList.name).toBe('third-workbench-review-loop');
  });
});

describe('parseTaskList', () => {
  const parse = (value: unknown, name = 'prd.json') =>
    parseTaskList(JSON.stringify(value, null, 2), name).taskList;

  it('reads a missing passes field as open, and name and branchName', () => {
    const taskList = parse({
      name: 'Sample Feature',
      branchName: 'feature/sample',
      userStories: [
        { id: 'US-001', title: 'a', passes: true },
        { id: 'US-002', title: 'b', dependsOn: ['US-001'] },
      ],
    });
    expect(taskList.stories.map((s) => s.passes)).toEqual([true, false]);
    expect(taskList).toMatchObject({ name: 'Sample Feature', branchName: 'feature/sample' });
    expect(taskList.stories[1]!.dependsOn).toEqual(['US-001']);
  });

  it('synthesises #1, #2… for items without ids, in file order', () => {
    const items = ['a', 'b', 'c'].map((description) => ({ description, steps: [], passes: false }));
    const stories = parse(items, 'feature_list.json').stories;
    expect(stories.map((s) => [s.id, s.hasId, s.priority])).toEqual([
      ['#1', false, undefined],
      ['#2', false, undefined],
      ['#3', false, undefined],
    ]);
  });

  it('takes a title from name, or else the first line of the description', () => {
    const stories = parse(
      [
        { id: 'A', name: 'Implement help command', passes: false },
        { id: 'B', description: 'Example: builds\nin detail', steps: ['Run it', 'No errors'] },
      ],
      'features.json',
    ).stories;
    expect(stories[0]).toMatchObject({ title: 'Implement help command', description: '' });
    expect(stories[1]).toMatchObject({
      title: 'Example: builds',
      acceptanceCriteria: ['Run it', 'No errors'],
    });
  });

  it('reads "stories" and a slug id', () => {
    const taskList = parse({ project: 'self-audit', stories: [{ id: 'docs', title: 'Docs' }] });
    expect(taskList.stories[0]!.id).toBe('docs');
    expect(taskList.stories).toHaveLength(1);
  });

  it('reads dependencies as dependsOn and keeps non-ASCII titles', () => {
    const features = [
      { id: 'FEAT-001', name: '项目依赖配置', passes: false },
      { id: 'FEAT-002', name: 'b', passes: false, dependencies: ['FEAT-001'] },
    ];
    const taskList = parse({ project_name: 'appointments', features }, 'feature_list.json');
    expect(taskList.stories[1]!.dependsOn).toEqual(['FEAT-001']);
    expect(taskList.stories[0]!.title).toBe('项目依赖配置');
  });

  it('normalises word priorities, with critical above high', () => {
    const words = ['critical', 'high', 'medium', 'low'];
    const items = words.map((priority, i) => ({ description: `f${i}`, priority }));
    expect(parse(items, 'feature_list.json').stories.map((s) => s.priority)).toEqual([0, 1, 2, 3]);
  });

  it('joins a list of notes into lines', () => {
    const stories = parse({ userStories: [{ id: 'S-1', title: 't', notes: ['一', 'two'] }] });
    expect(stories.stories[0]!.notes).toBe('一\ntwo');
  });

  it('reads feature_list.json fields', () => {
    const text = JSON.stringify({
      task_name: 'demo',
      default_model: 'sonnet',
      features: [
        {
          id: 'F1',
          category: 'core',
          priority: 'medium',
          model: 'opus',
          description: 'Do it\nin detail',
          steps: ['a'],
          passes: false,
          completed_iteration: null,
          notes: '',
        },
      ],
    });
    const { taskList } = parseTaskList(text, 'feature_list.json');
    expect(taskList).toMatchObject({ format: 'feature-list-object', name: 'demo' });
    expect(taskList.defaultModel).toBe('sonnet');
    expect(taskList.stories[0]).toMatchObject({
      title: 'Do it',
      priority: 2,
      model: 'opus',
      category: 'core',
      notes: '',
      acceptanceCriteria: ['a'],
    });
  });

  it('reads hybrid-only fields: spec_ref, mcpServers and amendment', () => {
    const text = JSON.stringify({
      description: 'x',
      createdAt: '2026-01-01',
      userStories: [
        {
          id: 'STORY-001',
          title: 't',
          acceptanceCriteria: [],
          priority: 1,
          passes: false,
          spec_ref: 'spec.md#auth',
          mcpServers: [],
          amendment: { id: 'AMD-1', type: 'add', timestamp: 'now', reason: 'r', changes: {} },
        },
      ],
    });
    const story = parseTaskList(text, 'prd.json').taskList.stories[0]!;
    expect(story).toMatchObject({ specRef: 'spec.md#auth', mcpServers: [] });
    expect(story.amendment).toEqual({ id: 'AMD-1', type: 'add', timestamp: 'now', reason: 'r' });
  });

  it('detects snarktank by US- ids when there is no project name', () => {
    const text = '{"userStories": [{"id": "US-001", "title": "a"}]}';
    expect(parseTaskList(text, 'prd.json').taskList.format).toBe('prd-snarktank');
  });

  it('accepts integer ids as strings', () => {
    const text = '[{"id": 7, "description": "a"}]';
    expect(parseTaskList(text, 'f.json').taskList.stories[0]).toMatchObject({
      id: '7',
      hasId: true,
    });
  });
});

describe('readTaskListFile', () => {
  it('reads a file from disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-read-'));
    const file = join(dir, 'prd.json');
    const stories = ['US-001', 'US-002'].map((id) => ({ id, title: id, passes: false }));
    await writeFile(file, `${JSON.stringify({ userStories: stories }, null, 2)}\n`);
    const doc = await readTaskListFile(file);
    expect(doc.taskList.stories).toHaveLength(2);
    expect(doc.text).toBe(await readFile(file, 'utf8'));
  });

  it('says to run ralph init when the file does not exist', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-read-'));
    const file = join(dir, 'prd.json');
    await expect(readTaskListFile(file)).rejects.toMatchObject({
      code: 'TASK_LIST_NOT_FOUND',
      location: { file },
      hint: expect.stringContaining('ralph init') as unknown,
    });
  });

  it('refuses a file that is not UTF-8 instead of rewriting its bytes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-read-'));
    const file = join(dir, 'prd.json');
    await writeFile(file, Buffer.from('[{"description": "caf\xe9"}]', 'latin1'));
    await expect(readTaskListFile(file)).rejects.toMatchObject({
      code: 'INVALID_TASK_LIST',
      hint: expect.stringContaining('UTF-8') as unknown,
    });
    await writeFile(file, '[{"description": "keeps a real \uFFFD"}]');
    expect((await readTaskListFile(file)).taskList.stories).toHaveLength(1);
  });

  it('returns a document read earlier as it is while the file holds the same text', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-read-'));
    const file = join(dir, 'prd.json');
    const stories = [{ id: 'US-001', title: 'one', passes: false }];
    await writeFile(file, `${JSON.stringify({ userStories: stories }, null, 2)}\n`);
    const first = await readTaskListFile(file);
    expect(await readTaskListFile(file, first)).toBe(first);
    await writeFile(
      file,
      `${JSON.stringify({ userStories: [{ ...stories[0], passes: true }] })}\n`,
    );
    const edited = await readTaskListFile(file, first);
    expect(edited).not.toBe(first);
    expect(edited.taskList.stories[0]?.passes).toBe(true);
    // Another file with the same text is another document.
    const other = join(dir, 'feature_list.json');
    await writeFile(other, first.text);
    expect((await readTaskListFile(other, first)).file).toBe(other);
  });

  it('reports other read failures as IO', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-read-'));
    await expect(readTaskListFile(dir)).rejects.toMatchObject({ code: 'IO' });
  });
});
