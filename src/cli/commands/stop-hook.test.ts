import { describe, expect, it } from 'vitest';
import {
  A,
  B,
  NASTY_BODY,
  OTHER,
  SESSION,
  iterationIs,
  loopText,
  msg,
  runCase,
  stateName,
  type Case,
} from '../../../test/e2e/session-loop/stop-hook-table.js';

const CASES: Case[] = [
  { name: 'no .claude folder: silent', noClaudeDir: true, silent: true },
  { name: 'no state file: silent', files: { 'settings.json': '{}' }, silent: true },
  {
    name: 'claims an unclaimed loop and blocks with its prompt',
    files: { [stateName(A)]: loopText() },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(2) },
    journal:
      /Iteration 1 .*\n\n\*\*Status:\*\* Claimed by session sess-me\. Continuing to iteration 2/,
  },
  {
    name: "leaves another session's loop alone",
    files: { [stateName(A)]: loopText({ session: OTHER, iteration: 3 }) },
    silent: true,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'continues its own loop',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 4 }) },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(5) },
    stdout: /iteration 5 of 10.*<promise>DONE<\/promise> only when it is true/,
  },
  {
    name: 'handles its own loop, not an unclaimed one',
    files: {
      [stateName(A)]: loopText({ session: SESSION, iteration: 2, body: 'mine' }),
      [stateName(B)]: loopText({ id: B, startedAt: '2025-01-01T00:00:00.000Z', body: 'theirs' }),
    },
    block: 'mine',
    after: { [stateName(A)]: iterationIs(3), [stateName(B)]: 'unchanged' },
  },
  {
    name: 'claims only the oldest of two unclaimed loops',
    files: {
      [stateName(A)]: loopText({ startedAt: '2026-02-01T00:00:00.000Z', body: 'newer' }),
      [stateName(B)]: loopText({ id: B, startedAt: '2026-01-01T00:00:00.000Z', body: 'older' }),
    },
    block: 'older',
    after: { [stateName(A)]: 'unchanged', [stateName(B)]: iterationIs(2) },
  },
  {
    name: "own loop beside another session's: only its own moves",
    files: {
      [stateName(A)]: loopText({ session: SESSION }),
      [stateName(B)]: loopText({ id: B, session: OTHER, iteration: 7 }),
    },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(2), [stateName(B)]: 'unchanged' },
  },
  {
    name: 'promise, exact: ends the loop',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 3 }) },
    input: msg('All green. <promise>DONE</promise>'),
    block: false,
    stdout: /"systemMessage":"ralph loop aaaa1111 ended at iteration 3: completion promise/,
    after: { [stateName(A)]: 'absent' },
    journal: /Loop ended: completion promise <promise>DONE<\/promise> found/,
  },
  {
    name: 'promise with surrounding and inner whitespace: ends',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'ALL TESTS PASS' }) },
    input: msg('<promise>\n  ALL   TESTS\tPASS \n</promise>'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'promise text without tags: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('DONE'),
    block: 'Do the task.',
  },
  {
    name: 'promise word in prose: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('I am not DONE yet, I will say promise DONE later.'),
    block: 'Do the task.',
  },
  {
    name: 'wrong tag: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('<result>DONE</result> <Promise>DONE</Promise> <promise>DONE</promis>'),
    block: 'Do the task.',
  },
  {
    name: 'different promise text: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: msg('<promise>DONE!</promise> <promise>done</promise> <promise>NOT DONE</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'glob promise "*" is literal: another text does not match',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: '*' }) },
    input: msg('<promise>anything</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'glob promise "*" is literal: the star itself matches',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: '*' }) },
    input: msg('<promise>*</promise>'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'regex and quote characters are literal',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'say "a.c" [ok]?' }) },
    input: msg('<promise>say "abc" [ok]?</promise> <promise>say "a.c" o?</promise>'),
    block: 'Do the task.',
  },
  {
    name: 'promise with quotes matches itself',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: 'say "a.c" [ok]?' }) },
    input: msg('done: <promise>say "a.c" [ok]?</promise>'),
    block: false,
  },
  {
    name: 'a prompt with --- and front-matter look-alikes is fed back exactly',
    files: { [stateName(A)]: loopText({ session: SESSION, body: NASTY_BODY }) },
    block: NASTY_BODY,
    after: {
      [stateName(A)]: (state, body) => {
        expect(state.loop_id).toBe(A);
        expect(state.iteration).toBe(2);
        expect(body).toBe(NASTY_BODY);
      },
    },
  },
];

describe('ralph stop-hook: claiming, ownership, promises, prompts (table)', () => {
  for (const testCase of CASES) it(testCase.name, () => runCase(testCase));
});
