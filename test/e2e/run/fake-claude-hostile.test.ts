import { describe, expect, it } from 'vitest';
import { initLine, jsonl, resultLine, textLine, toolUseLine } from './agent-stream.js';
import { createFakeLoop, passing, prdText, story } from './fake-loop.js';

/**
 * Hostile text (issue 15, item 4): escape sequences in the agent's output, a story's title and
 * notes and a check's output — an OSC 52 clipboard write, a CSI screen clear, an OSC 0 title
 * change, a C1 CSI, a bidi override — reach no terminal raw through any human view: they are
 * shown as visible escapes (util/control-chars.ts, terminalText).
 */

const HOSTILE =
  '\u001b]52;c;cm0gLXJmIH4=\u0007 \u001b[2J\u001b[H \u001b]0;pwned\u0007 \u009b31m \u202egnp.exe';
// Any of these raw in a view is a failure: ESC, BEL, C1 CSI/OSC, the bidi override.
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const RAW = /[\u001b\u0007\u009b\u009d\u202e]/;

describe('ralph run with a fake claude: escape sequences in agent text, titles and notes', () => {
  it('neutralises them in run -v, logs, monitor --once, status, list, inspect, evidence and validate', async () => {
    const stories = [story(1, { title: `Export ${HOSTILE}` }), story(2, { title: 'Second' })];
    // A check that prints the same sequences and fails: its output tail reaches `evidence`.
    const prd = prdText(stories).replace(
      '"priority": 1,',
      `"priority": 1,\n      "verify": ["printf '\\\\033[2J\\\\033]0;pwned\\\\007 check failed'; exit 1"],`,
    );
    const loop = await createFakeLoop(prd);
    const session = 'session-hostile';
    await loop.agent(1, {
      taskList: prdText(
        passing(stories, 'STORY-001').map((each) =>
          each.id === 'STORY-001' ? { ...each, notes: HOSTILE } : each,
        ),
      ).replace(
        '"priority": 1,',
        `"priority": 1,\n      "verify": ["printf '\\\\033[2J\\\\033]0;pwned\\\\007 check failed'; exit 1"],`,
      ),
      jsonl: jsonl(
        initLine(session),
        toolUseLine(session, 'toolu_1', 'Bash', { command: `echo '${HOSTILE}'` }),
        textLine(session, `Done. ${HOSTILE}`),
        resultLine(session, `Done. ${HOSTILE}`, { costUsd: 0.01 }),
      ),
    });

    const views: Record<string, string> = {};
    const show = async (name: string, args: string[]) => {
      const result = await loop.run(args);
      views[name] = result.stdout + result.stderr;
      expect(views[name], name).not.toMatch(/internal error/);
    };
    await show('run -v', ['run', '-v', '-n', '1', LOOP_ARG]);
    await show('logs', ['logs', LOOP_ARG]);
    await show('logs --raw', ['logs', '--raw', LOOP_ARG]);
    await show('monitor --once', ['monitor', '--once', LOOP_ARG]);
    await show('status', ['status', LOOP_ARG]);
    await show('list', ['list']);
    await show('inspect', ['inspect', `${LOOP_ARG}/logs/iteration-1-attempt-1.jsonl`]);
    await show('evidence', ['evidence', LOOP_ARG]);
    await show('validate', ['validate', LOOP_ARG]);

    for (const [name, text] of Object.entries(views)) {
      const raw = RAW.exec(text);
      expect(
        raw,
        `${name} printed U+${raw?.[0].charCodeAt(0).toString(16)} raw:\n${text}`,
      ).toBeNull();
    }
    // Shown, not dropped: the person sees that the agent tried.
    for (const name of ['run -v', 'logs', 'monitor --once', 'status', 'inspect', 'evidence']) {
      expect(views[name], name).toMatch(/\\u001b/);
    }
    expect(views['run -v']).toContain('\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(views['run -v']).toContain('\\u202egnp.exe');
  }, 60_000);
});

const LOOP_ARG = '.ralph/feature-fake-loop';
