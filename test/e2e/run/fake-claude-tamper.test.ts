import { describe, expect, it } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, expectFilesAgree, ofType } from './fake-loop.js';

/**
 * The agent may change only `passes` and `notes` (issue 3, item 4). Whatever else it does to the
 * task list is undone from the snapshot, its legitimate changes survive, progress.txt says what
 * was undone, and the iteration counts as an error — without ending the loop.
 */

/**
 * A hand-formatted prd.json (one-line arrays, an unknown top-level field, an unknown story
 * field), so "restored byte-exact" cannot pass by accident of JSON.stringify's layout.
 */
function handWritten(first: { passes: boolean; notes: string }): string {
  return `{
  "description": "Export orders as CSV",
  "createdAt": "2026-11-22T00:00:00Z",
  "owner": "team-orders",
  "userStories": [
    {
      "id": "STORY-001",
      "title": "CSV header row",
      "description": "The export starts with a header row",
      "acceptanceCriteria": ["Header names every column", "Unit tests pass"],
      "priority": 1,
      "passes": ${String(first.passes)},
      "notes": ${JSON.stringify(first.notes)},
      "estimate": 2
    },
    {
      "id": "STORY-002",
      "title": "Quote fields",
      "description": "Fields with commas are quoted",
      "acceptanceCriteria": ["Commas inside fields are quoted", "Unit tests pass"],
      "priority": 2,
      "passes": false,
      "notes": ""
    },
    {
      "id": "STORY-003",
      "title": "Stream large exports",
      "description": "Exports of 1e6 rows stream",
      "acceptanceCriteria": ["Memory stays under 100 MB"],
      "priority": 3,
      "passes": false,
      "notes": ""
    }
  ]
}
`;
}

describe('ralph run with a fake claude: task-list tampering', () => {
  it('restores criteria and removed stories, keeps passes/notes, and counts the iteration as an error; invalid JSON is restored too', async () => {
    const original = handWritten({ passes: false, notes: '' });
    const loop = await createFakeLoop(original);

    // Iteration 1: marks STORY-001 passing (allowed), and also weakens STORY-002's criteria and
    // drops STORY-003 (not allowed), reformatting the whole file on the way.
    const tampered = JSON.parse(original) as {
      userStories: { id: string; passes: boolean; notes: string; acceptanceCriteria: string[] }[];
    };
    tampered.userStories[0]!.passes = true;
    tampered.userStories[0]!.notes = 'header done in 1a2b3c4';
    tampered.userStories[1]!.acceptanceCriteria = ['Quoting is optional'];
    tampered.userStories.pop();
    await loop.agent(1, {
      taskList: `${JSON.stringify(tampered, null, 4)}\n`,
      jsonl: finishedRun('session-tamper', 'STORY-001 done. <promise>STORY_COMPLETE</promise>'),
    });
    // Iteration 2: leaves the file half-written.
    await loop.agent(2, {
      sh: `printf '{\\n  "description": "Export orders as CSV",\\n  "userStories": [\\n' > '${loop.prdFile}'`,
      jsonl: finishedRun('session-broken', 'I was editing prd.json when I stopped.'),
    });

    const run = await loop.run(['run', '-n', '2', '--pause', '0']);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(await loop.calls()).toBe(2);

    const afterFirst = handWritten({ passes: true, notes: 'header done in 1a2b3c4' });
    // After iteration 2 the file is what iteration 1 left, byte for byte.
    expect(await loop.prd()).toBe(afterFirst);

    const events = await loop.events();
    const restored = ofType(events, 'task_list_restored');
    expect(restored).toHaveLength(2);
    expect(restored[0]).toMatchObject({
      iteration: 1,
      kept: ['STORY-001 passes: true', 'STORY-001 notes'],
    });
    expect(restored[0]?.problems).toEqual(
      expect.arrayContaining([
        'changed acceptanceCriteria of STORY-002',
        'removed or renamed STORY-003',
      ]),
    );
    expect(restored[1]).toMatchObject({ iteration: 2, kept: [] });
    expect(String((restored[1]?.problems as string[])[0])).toContain(
      'left the task list unreadable',
    );

    const finished = ofType(events, 'iteration_finished');
    expect(finished.map((each) => each.outcome)).toEqual(['error', 'error']);
    expect(finished[0]).toMatchObject({
      newlyPassing: ['STORY-001'],
      storiesPassing: 1,
      storiesTotal: 3,
    });
    expect(finished[0]?.detail).toContain('task list restored');
    expect(finished[1]).toMatchObject({ storiesPassing: 1, storiesTotal: 3 });
    // The loop went on after the restore, to the next open story.
    expect((await loop.argv(2)).prompt).toContain('Work on **STORY-002:');

    const progress = await loop.progress();
    expect(progress).toContain(
      'ralph: iteration 1: restored the task list from before the iteration:',
    );
    expect(progress).toContain('removed or renamed STORY-003');
    expect(progress).toContain('changed acceptanceCriteria of STORY-002');
    expect(progress).toContain('(kept: STORY-001 passes: true, STORY-001 notes)');
    expect(progress).toMatch(/ralph: iteration 2: restored the task list [^\n]*unreadable/);
    expect(progress).toMatch(
      /\| 1 \| 1 \| [^|]+ \| STORY-001 \| error: task list restored[^|]* \| session-tamper \|/,
    );
    expect(await loop.status()).toMatchObject({
      state: 'REACHED_LIMIT',
      storiesPassing: 1,
      storiesTotal: 3,
    });
    await expectFilesAgree(loop);
  });
});
