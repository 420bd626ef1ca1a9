import type { Judge, SimpleCommand } from './analyze.js';

/**
 * A built-in rule for one command name: records its findings on the judge. Its own module so the
 * rule tables (file-commands.ts, git.ts, …) and commands.ts, which dispatches to them, do not
 * import each other.
 */
export type CommandRule = (command: SimpleCommand, judge: Judge) => void;
