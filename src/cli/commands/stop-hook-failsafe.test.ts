import { describe, it } from 'vitest';
import {
  A,
  B,
  SESSION,
  iterationIs,
  loopText,
  msg,
  runCase,
  stateName,
  type Case,
} from '../../../test/e2e/session-loop/stop-hook-table.js';

const CASES: Case[] = [
  {
    name: 'max iterations reached: ends',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 10, max: 10 }) },
    block: false,
    stdout: /reached max_iterations \(10\)/,
    after: { [stateName(A)]: 'absent' },
    journal: /Iteration 10 .*\n\n\*\*Status:\*\* Loop ended: reached max_iterations/,
  },
  {
    name: 'one below max iterations: continues to the last',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 9, max: 10 }) },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(10) },
  },
  {
    name: 'max 0 (unlimited) still stops at the default backstop of 500',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 500, max: 0 }) },
    block: false,
    stdout: /backstop of 500 iterations/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'max 0 below the backstop: continues',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 499, max: 0 }) },
    block: 'Do the task.',
    stdout: /iteration 500 of 500 \(backstop\)/,
  },
  {
    name: 'a configured backstop beats a larger max_iterations',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 3, max: 50 }) },
    config: 'loop:\n  backstopIterations: 3\n',
    block: false,
    stdout: /backstop of 3 iterations/,
  },
  {
    name: 'corrupt: no front matter: removed, stop allowed, said on stderr',
    files: { [stateName(A)]: 'just some text\n' },
    block: false,
    stderr: /ralph-loop-aaaa1111\.local\.md is corrupt \(no front matter.*removed/,
    stdout: /systemMessage/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt: non-numeric iteration',
    files: {
      [stateName(A)]: loopText({ session: SESSION }).replace('iteration: 1', 'iteration: one'),
    },
    block: false,
    stderr: /corrupt \(front matter field iteration/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt: non-numeric max_iterations',
    files: {
      [stateName(A)]: loopText({ session: SESSION }).replace(
        'max_iterations: 10',
        'max_iterations: lots',
      ),
    },
    block: false,
    stderr: /max_iterations/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'corrupt file beside a valid own loop: removed, the valid loop still runs',
    files: {
      [stateName(A)]: loopText({ session: SESSION }),
      [stateName(B)]: '---\nbroken: [\n',
    },
    block: 'Do the task.',
    stderr: /ralph-loop-bbbb2222\.local\.md is corrupt/,
    after: { [stateName(A)]: iterationIs(2), [stateName(B)]: 'absent' },
  },
  {
    name: 'corrupt: loop_id does not match the file name',
    files: { [stateName(A)]: loopText({ id: B }) },
    block: false,
    stderr: /does not match the file name/,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'symlinked state file: refused, not followed, left alone',
    symlinks: { [stateName(A)]: 'target.md' },
    files: { 'target.md': loopText() },
    block: false,
    stderr: /symbolic link; refused/,
    after: { [stateName(A)]: 'unchanged', 'target.md': 'unchanged' },
  },
  {
    name: 'transcript not yet flushed: last_assistant_message is enough',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { ...msg('<promise>DONE</promise>'), transcript_path: '/nonexistent/t.jsonl' },
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'no last_assistant_message: the transcript is read',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    transcript: [
      { type: 'user', message: { role: 'user', content: 'go' } },
      { type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text: 'Finished.' }] } },
      {
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: '<promise>DONE</promise>' }] },
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
    block: false,
    after: { [stateName(A)]: 'absent' },
  },
  {
    name: 'no last_assistant_message and an old promise in the transcript: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    transcript: [
      {
        type: 'assistant',
        message: { id: 'm1', content: [{ type: 'text', text: '<promise>DONE</promise>' }] },
      },
      { type: 'user', message: { role: 'user', content: 'not yet' } },
      {
        type: 'assistant',
        message: { id: 'm2', content: [{ type: 'text', text: 'still working' }] },
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
    block: 'Do the task.',
  },
  {
    name: 'no message and no transcript: continues',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { last_assistant_message: undefined },
    block: 'Do the task.',
  },
  {
    name: 'stop_hook_active: true still continues (the limits bound the loop)',
    files: { [stateName(A)]: loopText({ session: SESSION, iteration: 2 }) },
    input: { stop_hook_active: true },
    block: 'Do the task.',
    after: { [stateName(A)]: iterationIs(3) },
  },
  {
    name: 'inactive loop: ignored',
    files: { [stateName(A)]: loopText({ active: false }) },
    silent: true,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'no completion promise: continues until the limit',
    files: { [stateName(A)]: loopText({ session: SESSION, promise: null, max: 3 }) },
    input: msg('<promise>DONE</promise>'),
    block: 'Do the task.',
    stdout: /no completion promise: the loop ends after iteration 3/,
  },
  {
    name: 'stdin is not JSON: stop allowed',
    files: { [stateName(A)]: loopText() },
    rawStdin: 'not json{',
    block: false,
    stderr: /not JSON/,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'hook input without session_id: stop allowed, nothing touched',
    files: { [stateName(A)]: loopText() },
    input: { session_id: undefined },
    block: false,
    stderr: /session_id/,
    after: { [stateName(A)]: 'unchanged' },
  },
  {
    name: 'extra and unknown input fields are fine',
    files: { [stateName(A)]: loopText({ session: SESSION }) },
    input: { effort: { level: 'high' }, background_tasks: [], session_crons: [], future: 1 },
    block: 'Do the task.',
  },
];

describe('ralph stop-hook: limits, corrupt and odd files, transcripts, input (table)', () => {
  for (const testCase of CASES) it(testCase.name, () => runCase(testCase));
});
