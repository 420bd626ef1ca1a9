import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun, MODEL } from './agent-stream.js';
import {
  createFakeLoop,
  expectFilesAgree,
  ofType,
  passing,
  prdText,
  story,
  withoutGuardSettings,
} from './fake-loop.js';

/**
 * `ralph run` (the built binary) against the fake `claude` on PATH: the loop's main paths, with
 * every file a user or a monitor reads checked after the run.
 */

const FAST = ['--pause', '0'];

describe('ralph run with a fake claude: the main paths', () => {
  it('completes three stories, one per iteration, STORY_COMPLETE then COMPLETE → exit 0', async () => {
    const stories = [story(1), story(2), story(3)];
    const loop = await createFakeLoop(stories);
    const original = await loop.prd();
    const finals = [
      'STORY-001 done. <promise>STORY_COMPLETE</promise>',
      'STORY-002 done. <promise>STORY_COMPLETE</promise>',
      'STORY-003 done, every story passes. <promise>COMPLETE</promise>',
    ];
    const done: string[] = [];
    for (const [index, final] of finals.entries()) {
      done.push(stories[index]!.id);
      await loop.agent(index + 1, {
        taskList: prdText(passing(stories, ...done)),
        jsonl: finishedRun(`session-${index + 1}`, final, 0.25),
      });
    }

    const run = await loop.run(['run', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(
      'COMPLETE — every story passes. 3 iterations, 3/3 stories passing',
    );
    expect(await loop.calls()).toBe(3);

    // Only the passes changed: the agent's final file, byte for byte.
    expect(await loop.prd()).toBe(prdText(passing(stories, 'STORY-001', 'STORY-002', 'STORY-003')));
    expect(original).toBe(prdText(stories));

    expect(await loop.status()).toMatchObject({
      state: 'COMPLETE',
      status: 'COMPLETE',
      iteration: 3,
      storiesPassing: 3,
      storiesComplete: 3,
      storiesTotal: 3,
      costUsd: 0.75,
      sessionId: 'session-3',
      exitReason: 'every story passes',
      // No -m: the model is the one the agent's init line reports.
      currentStory: { id: 'STORY-003', model: MODEL },
    });

    const events = await loop.events();
    expect(events[0]).toMatchObject({
      type: 'run_started',
      resumedAfterIteration: 0,
      storiesTotal: 3,
    });
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'COMPLETE',
      exitCode: 0,
      iterations: 3,
    });
    expect(ofType(events, 'iteration_started').map((each) => each.story)).toEqual(
      stories.map(({ id, title }) => ({ id, title })),
    );
    expect(
      ofType(events, 'iteration_finished').map(
        ({ outcome, signal, newlyPassing, sessionId, costUsd }) => ({
          outcome,
          signal,
          newlyPassing,
          sessionId,
          costUsd,
        }),
      ),
    ).toEqual([
      {
        outcome: 'progress',
        signal: 'STORY_COMPLETE',
        newlyPassing: ['STORY-001'],
        sessionId: 'session-1',
        costUsd: 0.25,
      },
      {
        outcome: 'progress',
        signal: 'STORY_COMPLETE',
        newlyPassing: ['STORY-002'],
        sessionId: 'session-2',
        costUsd: 0.25,
      },
      {
        outcome: 'complete',
        signal: 'COMPLETE',
        newlyPassing: ['STORY-003'],
        sessionId: 'session-3',
        costUsd: 0.25,
      },
    ]);
    expect(ofType(events, 'complete_not_believed')).toEqual([]);
    expect(ofType(events, 'agent_tool_use')).toHaveLength(3);

    const progress = await loop.progress();
    for (let n = 1; n <= 3; n += 1) {
      expect(progress).toMatch(
        new RegExp(
          `\\| ${n} \\| 1 \\| [^|]+ \\| STORY-00${n} \\| (progress|complete): [^|]+ \\| session-${n} \\| \\$0\\.2500 \\|`,
        ),
      );
      // The raw output reaches the iteration log untouched.
      expect(await loop.log(n)).toBe(await readFile(join(loop.scripts, `${n}.jsonl`), 'utf8'));
    }
    expect(progress).toContain('COMPLETE — every story passes');

    // One fresh process per story, each told which story is its own, in the repository.
    for (let n = 1; n <= 3; n += 1) {
      const { argv, cwd, prompt } = await loop.argv(n);
      expect(cwd).toBe(loop.repo);
      expect(argv.slice(0, 1)).toEqual(['-p']);
      expect(prompt).toContain(`Work on **STORY-00${n}: Story number ${n}**`);
      expect(withoutGuardSettings(argv.slice(1))).toEqual([
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-mode',
        'acceptEdits',
      ]);
    }

    // A completed feature is archived (copied, the loop directory stays as it was).
    const archived = await readdir(join(loop.dir, 'archive'));
    expect(archived).toHaveLength(1);
    expect(await readFile(join(loop.dir, 'archive', archived[0]!, 'prd.json'), 'utf8')).toBe(
      await loop.prd(),
    );
    await expectFilesAgree(loop);
  });

  it('stops at -n 2 when the agent never marks anything → exit 1, REACHED_LIMIT', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    await loop.agent('default', {
      jsonl: finishedRun('session-idle', 'I looked around but changed nothing.'),
    });

    const run = await loop.run(['run', '-n', '2', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('REACHED_LIMIT — max iterations reached (2 in this run)');
    expect(await loop.calls()).toBe(2);
    expect(await loop.prd()).toBe(prdText(stories));
    expect(await loop.status()).toMatchObject({
      state: 'REACHED_LIMIT',
      iteration: 2,
      maxIterations: 2,
      storiesPassing: 0,
      costUsd: 0.02,
      exitReason: 'max iterations reached (2 in this run)',
      lastResult: 'no_progress: no story was marked passing',
    });
    const events = await loop.events();
    expect(ofType(events, 'iteration_finished').map((each) => each.outcome)).toEqual([
      'no_progress',
      'no_progress',
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'run_finished',
      state: 'REACHED_LIMIT',
      exitCode: 1,
      iterations: 2,
    });
    // The unfinished story is offered again.
    expect((await loop.argv(2)).prompt).toContain('Work on **STORY-001:');
    const progress = await loop.progress();
    expect(progress).toMatch(
      /\| 2 \| 1 \| [^|]+ \| STORY-001 \| no_progress: no story was marked passing \| session-idle \| \$0\.0100 \|/,
    );
    expect(existsSync(join(loop.dir, 'archive'))).toBe(false);
    await expectFilesAgree(loop);
  });

  it('does not believe COMPLETE while stories are open, and carries on', async () => {
    const stories = [story(1), story(2), story(3)];
    const loop = await createFakeLoop(stories);
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun(
        'session-eager',
        'STORY-001 is done, so the feature is done. <promise>COMPLETE</promise>',
      ),
    });
    await loop.agent(2, { jsonl: finishedRun('session-next', 'Still working on STORY-002.') });

    const run = await loop.run(['run', '-n', '2', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'printed COMPLETE but STORY-002, STORY-003 still open: not believed',
    );
    expect(await loop.calls()).toBe(2);
    const events = await loop.events();
    expect(ofType(events, 'complete_not_believed')).toEqual([
      expect.objectContaining({ iteration: 1, openStories: ['STORY-002', 'STORY-003'] }),
    ]);
    expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
      outcome: 'progress',
      signal: 'COMPLETE',
      newlyPassing: ['STORY-001'],
    });
    expect((await loop.argv(2)).prompt).toContain('Work on **STORY-002:');
    expect(await loop.status()).toMatchObject({ state: 'REACHED_LIMIT', storiesPassing: 1 });
    await expectFilesAgree(loop);
  });

  it('--json prints only LoopEvent lines, run_started first and run_finished last', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun('session-a', '<promise>STORY_COMPLETE</promise>'),
    });
    await loop.agent(2, {
      taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('session-b', '<promise>COMPLETE</promise>'),
    });

    const run = await loop.run(['run', '--json', ...FAST]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const lines = run.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type: unknown; at: unknown });
    for (const event of events) {
      expect(typeof event.type).toBe('string');
      expect(Number.isNaN(Date.parse(String(event.at)))).toBe(false);
    }
    expect(events[0]?.type).toBe('run_started');
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', state: 'COMPLETE', exitCode: 0 });
    expect(events.map((event) => event.type)).toContain('agent_tool_use');
    // The same stream a monitor reads from events.jsonl.
    expect(events).toEqual(await loop.events());
    await expectFilesAgree(loop);
  });

  it("shows preflight's warnings once the run starts: a protected branch, with DIR given too", async () => {
    const loop = await createFakeLoop([story(1)]);
    await loop.agent(1, {
      taskList: prdText(passing([story(1)], 'STORY-001')),
      jsonl: finishedRun('session-p', '<promise>COMPLETE</promise>'),
    });
    const run = await loop.run(['run', '.ralph/feature-fake-loop', ...FAST], {
      ...loop.env,
      RALPH_PROTECTED_BRANCHES: 'main,feature/fake-loop',
    });
    expect(run.code, run.stderr).toBe(0);
    const warnings = ofType(await loop.events(), 'warning').map((each) => String(each.message));
    expect(warnings).toEqual([expect.stringContaining("On protected branch 'feature/fake-loop'")]);
    expect(run.stdout).toContain("On protected branch 'feature/fake-loop'");
  });
});
