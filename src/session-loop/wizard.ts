import { defaultOf } from '../state/config-facts.js';
import { promiseProblem, normalisePromise } from './promise.js';
import { checkPrompt } from './prompt-check.js';

/**
 * `ralph loop wizard` (the seed's /start-loop): asks for the task, success criteria (teaching
 * checkable vs vague ones), the iteration limit and the promise, builds the prompt, checks it is
 * safe to store, shows it and asks before starting. Pure over `ask`/`say`, so tests feed answers;
 * the command wires them to stdin/stdout (piped answers work: one line per question).
 */

export interface WizardIo {
  /** Shows the question and resolves with the next input line; undefined at end of input. */
  ask(question: string): Promise<string | undefined>;
  say(text: string): void;
}

export interface WizardResult {
  prompt: string;
  maxIterations: number;
  completionPromise: string;
}

export class WizardAborted extends Error {
  override readonly name = 'WizardAborted';
}

const DEFAULT_MAX = 20;
const DEFAULT_PROMISE = 'DONE';
const VAGUE =
  /\b(works?|working|good|better|nice|clean|properly|correctly|robust|well|fast|friendly|polished)\b/i;
const CHECKABLE =
  /\d|`|\b(pass(es)?|returns?|exists?|exit|tests?|file|status|prints?|shows?|contains?|lint|compiles?|builds?|errors?)\b/i;

export async function runWizard(
  io: WizardIo,
  options: {
    loopId: string;
    task?: string | undefined;
    /** config loop.backstopIterations, named in the limit question. */
    backstopIterations?: number | undefined;
  },
): Promise<WizardResult> {
  io.say('ralph loop wizard: the same prompt is given to Claude at every stop until it prints');
  io.say(
    'the completion promise or reaches the iteration limit. A good prompt says what to do and',
  );
  io.say('how anyone can CHECK that it is done.\n');
  const given = options.task?.trim() ?? '';
  const task =
    given !== '' ? given : await required(io, 'What is the task? (one or two sentences)\n> ');

  io.say('\nSuccess criteria: how will we know it is done? Each must be checkable.');
  io.say('  Bad:  "make it work well", "clean code", "the API is good"');
  io.say('  Good: "`npm test` passes", "GET /todos returns 200 and a JSON array",');
  io.say('        "npx tsc --noEmit reports no errors"');
  const criteria = await askCriteria(io);

  const maxIterations = await askNumber(
    io,
    options.backstopIterations ?? defaultOf('loop.backstopIterations'),
  );
  const completionPromise = await askPromise(io);
  const prompt = buildPrompt({
    task,
    criteria,
    promise: completionPromise,
    loopId: options.loopId,
  });

  const check = checkPrompt(prompt, completionPromise);
  if (check.errors.length > 0)
    throw new WizardAborted(`cannot store the prompt: ${check.errors.join('; ')}`);
  for (const warning of check.warnings) io.say(`warning: ${warning}`);
  io.say('\n----- the prompt -----');
  io.say(prompt);
  io.say('----------------------');
  io.say(
    `Limit: ${maxIterations === 0 ? 'none (backstop applies)' : `${maxIterations} iterations`}; promise: <promise>${completionPromise}</promise>`,
  );
  const confirm = (await answer(io, 'Start this loop? [Y/n] ')).trim().toLowerCase();
  if (confirm !== '' && confirm !== 'y' && confirm !== 'yes')
    throw new WizardAborted('not started');
  return { prompt, maxIterations, completionPromise };
}

export function buildPrompt(parts: {
  task: string;
  criteria: readonly string[];
  promise: string;
  loopId: string;
}): string {
  return [
    parts.task,
    '',
    'Success criteria (every one must hold, and be verified):',
    ...parts.criteria.map((criterion) => `- ${criterion}`),
    '',
    'Every iteration:',
    `1. Read .claude/ralph-journal-${parts.loopId}.md to see what earlier iterations tried.`,
    '2. Take the next unmet criterion, work on it, and verify it by running the checks.',
    '3. Append to the journal what you tried and the result.',
    `4. Only when every criterion is met and verified, output <promise>${parts.promise}</promise>.`,
    '   Never output it to get out of the loop.',
    '',
  ].join('\n');
}

/** Why a criterion is hard to check, or undefined when it looks checkable. */
export function vagueCriterion(criterion: string): string | undefined {
  if (!VAGUE.test(criterion) || CHECKABLE.test(criterion)) return undefined;
  return `"${criterion}" is hard to check: what command, output or file would prove it?`;
}

async function askCriteria(io: WizardIo): Promise<string[]> {
  const criteria: string[] = [];
  for (;;) {
    const line = (
      await answer(io, `Criterion ${criteria.length + 1} (empty line when done)\n> `)
    ).trim();
    if (line === '') {
      if (criteria.length > 0) return criteria;
      io.say('At least one criterion, please: without one the loop cannot know it is done.');
      continue;
    }
    const vague = vagueCriterion(line);
    if (vague === undefined) {
      criteria.push(line);
      continue;
    }
    io.say(vague);
    const rewrite = (await answer(io, 'Rewrite it (or press Enter to keep it as is)\n> ')).trim();
    criteria.push(rewrite === '' ? line : rewrite);
  }
}

async function askNumber(io: WizardIo, backstop: number): Promise<number> {
  io.say('\nIteration limit: the loop stops after this many iterations even without the promise.');
  for (;;) {
    const text = (
      await answer(io, `Maximum iterations (0 = no limit, backstop ${backstop}) [${DEFAULT_MAX}]: `)
    ).trim();
    if (text === '') return DEFAULT_MAX;
    if (/^\d+$/.test(text)) return Number(text);
    io.say('Please give a whole number, e.g. 20.');
  }
}

async function askPromise(io: WizardIo): Promise<string> {
  io.say('\nCompletion promise: Claude ends the loop by printing <promise>PHRASE</promise>.');
  for (;;) {
    const text = (await answer(io, `Promise phrase [${DEFAULT_PROMISE}]: `)).trim();
    const promise = text === '' ? DEFAULT_PROMISE : normalisePromise(text);
    const problem = promiseProblem(promise);
    if (problem === undefined) return promise;
    io.say(problem);
  }
}

async function required(io: WizardIo, question: string): Promise<string> {
  for (;;) {
    const text = (await answer(io, question)).trim();
    if (text !== '') return text;
  }
}

/** Every question needs an answer line; input that ends early aborts with nothing started. */
async function answer(io: WizardIo, question: string): Promise<string> {
  const line = await io.ask(question);
  if (line === undefined) throw new WizardAborted('input ended before the wizard finished');
  return line;
}
