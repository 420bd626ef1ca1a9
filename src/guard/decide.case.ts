import type { Decision } from './policy.js';

/** One row of the guard's table (decide.cases.ts, decide.cases-tools.ts) and its shorthands. */

export interface GuardCase {
  tool: string;
  input: Record<string, unknown>;
  expected: Decision;
  why: string;
}

export const bash = (command: string, expected: Decision, why: string): GuardCase => ({
  tool: 'Bash',
  input: { command },
  expected,
  why,
});
export const deny = (command: string, why: string): GuardCase => bash(command, 'deny', why);
export const allow = (command: string, why = 'ordinary development'): GuardCase =>
  bash(command, 'allow', why);
