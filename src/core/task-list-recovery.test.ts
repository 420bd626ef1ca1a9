import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopPaths } from '../state/paths.js';
import { readTaskListSnapshot, writeTaskListSnapshot } from '../state/task-list-snapshot.js';
import { recoverTaskList } from './task-list-recovery.js';

const prd = (passes: boolean, title = 'First') =>
  `${JSON.stringify(
    {
      description: 'plan',
      userStories: [
        { id: 'STORY-001', title, acceptanceCriteria: ['a'], passes, notes: '' },
        { id: 'STORY-002', title: 'Second', acceptanceCriteria: ['b'], passes: false, notes: '' },
      ],
    },
    null,
    2,
  )}\n`;

async function loop(current: string, snapshot: string | undefined) {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-recovery-'));
  const file = loopPaths(dir).prd;
  await writeFile(file, current);
  if (snapshot !== undefined) {
    await writeTaskListSnapshot(dir, {
      file,
      iteration: 4,
      attempt: 1,
      takenAt: 'now',
      text: snapshot,
    });
  }
  return { dir, file };
}

describe('recoverTaskList', () => {
  it('restores a torn task list from the snapshot, keeping the passes it can read', async () => {
    const whole = prd(true);
    const { dir, file } = await loop(whole.slice(0, whole.indexOf('STORY-002')), prd(false));
    const recovered = await recoverTaskList(dir, file);
    expect(recovered).toMatchObject({ iteration: 4, kept: ['STORY-001 passes: true'] });
    expect(recovered?.problems[0]).toMatch(/^left the task list unreadable/);
    expect(await readFile(file, 'utf8')).toBe(prd(true));
    expect(await readTaskListSnapshot(dir)).toBeUndefined();
  });

  it('leaves a task list that reads as it is, and drops the snapshot', async () => {
    const { dir, file } = await loop(prd(true, 'Edited by the person'), prd(false));
    expect(await recoverTaskList(dir, file)).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe(prd(true, 'Edited by the person'));
    expect(await readTaskListSnapshot(dir)).toBeUndefined();
  });

  it('never touches a broken task list when no run died mid-iteration', async () => {
    const { dir, file } = await loop('{ "broken', undefined);
    expect(await recoverTaskList(dir, file)).toBeUndefined();
    expect(await readFile(file, 'utf8')).toBe('{ "broken');
  });
});
