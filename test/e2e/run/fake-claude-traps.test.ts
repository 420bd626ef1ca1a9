import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusPath, itCorpus } from '../../corpus.js';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, expectFilesAgree, ofType, passing, prdText, story } from './fake-loop.js';

/**
 * Output that looks like a completion or a limit but is not the agent's own final word
 * (agent-outputs.md: a promise counts only in the final message; usage-limit text in a tool
 * result is file content), and runs cut before their result line.
 */

const AGENT_FIXTURES = resolve(import.meta.dirname, '../../fixtures/agent');
const fixture = (name: string) => resolve(AGENT_FIXTURES, name);
const FAST = ['--pause', '0'];

/** Prints the prompt ralph passed (prompt-N.txt) back as a user line, like a replayed prompt. */
const ECHO_PROMPT = `node -e '
const fs = require("fs");
const dir = process.env.FAKE_CLAUDE_SCRIPT_DIR;
const prompt = fs.readFileSync(dir + "/prompt-" + process.env.FAKE_CLAUDE_CALL + ".txt", "utf8");
const content = [{ type: "text", text: prompt }];
console.log(JSON.stringify({ type: "user", message: { role: "user", content }, session_id: "session-echo" }));
'`;

describe('ralph run with a fake claude: completion and limit traps', () => {
  it('ignores <promise>COMPLETE</promise> in the echoed prompt, a tool result and an earlier message', async () => {
    const stories = [story(1)];
    const loop = await createFakeLoop(stories);
    const echo = fixture('prompt-echo.jsonl');
    // init first, then the prompt echo, then the rest of the recorded run.
    await loop.agent(1, {
      sh: [`head -n 1 '${echo}'`, ECHO_PROMPT, `tail -n +2 '${echo}'`].join('\n'),
    });

    const run = await loop.run(['run', '-n', '1', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    // The trap is armed: ralph's prompt holds the promise, and the agent's output repeats it.
    expect((await loop.argv(1)).prompt).toContain('<promise>COMPLETE</promise>');
    const log = await loop.log(1);
    expect(log.split('\n')[1]).toContain('"type":"user"');
    expect(log.match(/<promise>COMPLETE<\/promise>/g)?.length).toBeGreaterThanOrEqual(3);

    const events = await loop.events();
    expect(ofType(events, 'complete_not_believed')).toEqual([]);
    const [finished] = ofType(events, 'iteration_finished');
    expect(finished).toMatchObject({
      outcome: 'no_progress',
      newlyPassing: [],
      sessionId: 'session-echo',
    });
    expect(finished?.signal).toBeUndefined();
    expect(await loop.status()).toMatchObject({ state: 'REACHED_LIMIT', storiesPassing: 0 });
    await expectFilesAgree(loop);
  });

  it('ignores a promise and usage-limit text inside tool results', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      sh: `cat '${fixture('tool-result-trap.jsonl')}'`,
    });
    await loop.agent(2, { jsonl: finishedRun('session-2', 'Working on STORY-002.') });

    const run = await loop.run(['run', '-n', '2', ...FAST]);
    // Neither complete (0) nor a usage limit (2): the loop simply went on to the next story.
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(await loop.calls()).toBe(2);
    expect((await loop.argv(2)).prompt).toContain('Work on **STORY-002:');
    const events = await loop.events();
    expect(ofType(events, 'complete_not_believed')).toEqual([]);
    expect(ofType(events, 'warning')).toEqual([]);
    expect(ofType(events, 'iteration_finished')[0]).toMatchObject({
      outcome: 'progress',
      signal: 'STORY_COMPLETE',
      newlyPassing: ['STORY-001'],
      sessionId: 'session-trap',
      costUsd: 0.031,
    });
    expect(await loop.status()).toMatchObject({ state: 'REACHED_LIMIT', storiesPassing: 1 });
    await expectFilesAgree(loop);
  });

  it('never counts a run without a result line as complete: killed mid-run, or exit 0 after a partial stream', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    const cut = fixture('cut-before-result.jsonl');
    // Call 1 is killed (SIGKILL to the fake itself) after printing part of a run.
    await loop.agent(1, { sh: `cat '${cut}'\nkill -KILL "$PPID"` });
    // Call 2 prints the same partial run and exits 0 as if nothing were wrong.
    await loop.agent(2, { jsonl: await readFile(cut, 'utf8') });

    const run = await loop.run(['run', '-n', '2', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(await loop.calls()).toBe(2);
    expect(await loop.log(1)).toBe(await readFile(cut, 'utf8'));

    const finished = ofType(await loop.events(), 'iteration_finished');
    expect(finished).toHaveLength(2);
    expect(finished[0]).toMatchObject({ outcome: 'error', sessionId: 'session-cut' });
    expect(finished[0]?.detail).toContain('killed by SIGKILL');
    expect(['no_progress', 'error']).toContain(finished[1]?.outcome);
    for (const each of finished) {
      expect(each.costUsd).toBeUndefined();
      expect(each.newlyPassing).toEqual([]);
    }
    expect(await loop.status()).toMatchObject({
      state: 'REACHED_LIMIT',
      storiesPassing: 0,
      costUsd: 0,
    });
    expect(await loop.progress()).toMatch(
      /\| 1 \| 1 \| [^|]+ \| STORY-001 \| error: [^|]*SIGKILL[^|]* \| session-cut \| - \|/,
    );
    expect(await loop.prd()).toBe(prdText(stories));
    await expectFilesAgree(loop);
  });

  itCorpus(
    'replays real transcripts whose tool results hold promises and limit text (shared corpus)',
    async () => {
      const stories = [story(1), story(2), story(3)];
      const loop = await createFakeLoop(stories);
      const transcript = (name: string) => corpusPath('transcripts', name);
      // Iteration 12: finished normally (STORY_COMPLETE); a tool_result holds both promises,
      // "usage limit", "5-hour limit", 429 and 529.
      await loop.agent(1, {
        taskList: prdText(passing(stories, 'STORY-001')),
        sh: `cat '${transcript('hybrid33-iteration-12.jsonl')}'`,
      });
      // Iteration 8: killed mid-run (no result line), promise text in tool results.
      await loop.agent(2, { sh: `cat '${transcript('hybrid33-iteration-8.jsonl')}'`, exit: 143 });
      // Iteration 3: no result line, exit 0, last JSON line an assistant tool_use.
      await loop.agent(3, { sh: `cat '${transcript('hybrid33-iteration-3.jsonl')}'` });

      const run = await loop.run(['run', '-n', '3', ...FAST]);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      const events = await loop.events();
      expect(ofType(events, 'complete_not_believed')).toEqual([]);
      const finished = ofType(events, 'iteration_finished');
      expect(
        finished.map(({ outcome, signal, sessionId }) => ({ outcome, signal, sessionId })),
      ).toEqual([
        {
          outcome: 'progress',
          signal: 'STORY_COMPLETE',
          sessionId: 'eb53aff3-0134-420a-8f95-116ab5562283',
        },
        { outcome: 'error', signal: undefined, sessionId: 'ae755311-74b6-49f3-b7a5-6afe94ea214f' },
        {
          outcome: 'no_progress',
          signal: undefined,
          sessionId: '04674b72-cbbb-457a-a7d2-0b4906d57924',
        },
      ]);
      expect(finished[0]?.costUsd).toBeCloseTo(1.8525, 4);
      expect(await loop.log(2)).toBe(
        await readFile(transcript('hybrid33-iteration-8.jsonl'), 'utf8'),
      );
      expect(await loop.status()).toMatchObject({ state: 'REACHED_LIMIT', storiesPassing: 1 });
      await expectFilesAgree(loop);
    },
  );

  it('takes no promise from a cut run: narration followed by a tool call is not a final message', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    // "I'll … print <promise>COMPLETE</promise> once every story passes", then a Glob call, then
    // the stream ends (exit 0): the run never reached a final message.
    await loop.agent(1, { jsonl: await readFile(fixture('cut-before-result.jsonl'), 'utf8') });

    const run = await loop.run(['run', '-n', '1', ...FAST]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const events = await loop.events();
    expect(ofType(events, 'complete_not_believed')).toEqual([]);
    expect(ofType(events, 'iteration_finished')[0]?.signal).toBeUndefined();
    await expectFilesAgree(loop);
  });
});
