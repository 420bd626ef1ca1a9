import { appendFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type * as Library from '../../../src/index.js';
import type { LoopEvent } from '../../../src/index.js';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, passing, prdText, story } from '../run/fake-loop.js';

const DIST_INDEX = resolve(import.meta.dirname, '../../../dist/index.js');
const { startRun } = (await import(pathToFileURL(DIST_INDEX).href)) as typeof Library;

/**
 * Issue 14, item 5 through the built package and the fake claude: hooks in a `<point>.d/`
 * folder, `<point>.sh` and hooks registered in code all run in one run, in the spec's order
 * (code first), a throwing code hook is a warning like a failing script, and a configured
 * `completion.promise` is what the prompt asks for and what ralph listens to.
 */
describe('startRun: composed hooks and completion.promise', () => {
  it('runs code hooks, then <point>.sh, then <point>.d/*.sh by name, and honours the promise', async () => {
    const stories = [story(1), story(2)];
    const loop = await createFakeLoop(stories);
    const trace = join(loop.repo, '..', 'hooks.trace');
    const hooks = join(loop.dir, 'hooks');
    await mkdir(join(hooks, 'post_iteration.d'), { recursive: true });
    const line = (who: string) =>
      `echo "${who} $RALPH_ITERATION $RALPH_HOOK_POINT" >> '${trace}'\n`;
    await writeFile(join(hooks, 'post_iteration.sh'), line('script'));
    await writeFile(join(hooks, 'post_iteration.d', '20-later.sh'), line('d20'));
    await writeFile(join(hooks, 'post_iteration.d', '10-first.sh'), `${line('d10')}exit 5\n`);
    await mkdir(join(loop.repo, '.ralph'), { recursive: true });
    await writeFile(
      join(loop.repo, '.ralph', 'config.yaml'),
      'completion:\n  promise: "<promise>SHIPPED</promise>"\n',
    );
    // Iteration 1 claims the whole feature with the configured promise while STORY-002 is
    // open (not believed); iteration 2 ends it with the old default, which is no claim now.
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun('s-1', 'All done. <promise>SHIPPED</promise>'),
    });
    await loop.agent(2, {
      taskList: prdText(passing(stories, 'STORY-001', 'STORY-002')),
      jsonl: finishedRun('s-2', 'Done. <promise>COMPLETE</promise>'),
    });

    const events: LoopEvent[] = [];
    const logged: string[] = [];
    const result = await startRun({
      dir: loop.dir,
      cwd: loop.repo,
      env: loop.env,
      pauseSeconds: 0,
      notify: false,
      log: (text) => logged.push(text),
      reporters: [{ onEvent: (event) => void events.push(event) }],
      hooks: {
        pre_run: function checkVpn() {
          throw new Error('no VPN');
        },
        post_iteration: [
          (variables) => {
            appendFileSync(
              trace,
              `code ${variables.RALPH_ITERATION ?? ''} ${variables.RALPH_HOOK_POINT ?? ''}\n`,
            );
          },
          async (variables, { point }) => {
            await new Promise((done) => setTimeout(done, 20));
            appendFileSync(trace, `code-async ${variables.RALPH_STORY_ID ?? ''} ${point}\n`);
          },
        ],
      },
    });
    expect(result).toMatchObject({ status: 'COMPLETE', iterations: 2 });

    expect((await readFile(trace, 'utf8')).trim().split('\n')).toEqual([
      'code 1 post_iteration',
      'code-async STORY-001 post_iteration',
      'script 1 post_iteration',
      'd10 1 post_iteration',
      'd20 1 post_iteration',
      'code 2 post_iteration',
      'code-async STORY-002 post_iteration',
      'script 2 post_iteration',
      'd10 2 post_iteration',
      'd20 2 post_iteration',
    ]);
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));
    expect(warnings).toContain('hook pre_run: code hook 1 (checkVpn): threw Error: no VPN');
    expect(warnings).toContain('hook post_iteration: post_iteration.d/10-first.sh: exit code 5');

    // The prompt asks for the configured promise, never the default one.
    const prompt = (await loop.argv(1)).prompt;
    expect(prompt).toContain('<promise>SHIPPED</promise>');
    expect(prompt).not.toContain('<promise>COMPLETE</promise>');
    // ralph listened for it: the early claim was seen (and not believed); the default was not.
    const doubts = events.filter((event) => event.type === 'complete_not_believed');
    expect(doubts).toHaveLength(1);
    expect(doubts[0]).toMatchObject({ iteration: 1, openStories: ['STORY-002'] });
    const finished = events.flatMap((event) =>
      event.type === 'iteration_finished' ? [event.signal ?? null] : [],
    );
    expect(finished).toEqual(['COMPLETE', null]);
  });
});
