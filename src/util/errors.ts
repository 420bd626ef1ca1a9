/**
 * Typed errors with stable codes. Expected outcomes (complete, limits reached, …) are results,
 * not errors; these are for things a person has to fix. One handler (cli/exit.ts) prints them
 * and sets the exit code, so every layer can throw them without knowing about the terminal.
 */

export type ErrorCode =
  | 'INVALID_JSON'
  | 'INVALID_YAML'
  | 'INVALID_TASK_LIST'
  | 'INVALID_CONFIG'
  | 'INVALID_MEMORIES'
  | 'TASK_LIST_NOT_FOUND'
  | 'LOOP_DIR_NOT_FOUND'
  | 'NOT_A_GIT_REPO'
  | 'DETACHED_HEAD'
  | 'LOCKED'
  | 'ALREADY_EXISTS'
  | 'PREFLIGHT_FAILED'
  | 'USAGE'
  | 'LOOP_NOT_FOUND'
  | 'AGENT_CONFIG'
  | 'NOT_RUNNING'
  | 'STOP_TIMEOUT'
  | 'UNSAFE_FILE'
  | 'IO'
  /** ralph's own state could not be written: disk full, read-only filesystem, no permission. */
  | 'NO_SPACE'
  | 'READ_ONLY'
  | 'NO_PERMISSION';

/** Exit codes of design.md §4: 2 is invalid input or configuration. */
export const EXIT_INVALID_INPUT = 2;

/** Where in a file a problem is: 1-based line and column, and/or a field path such as `userStories[3].passes`. */
export interface SourceLocation {
  file: string;
  line?: number;
  column?: number;
  field?: string;
}

/**
 * Marks every RalphError, whichever copy of this module made it: the CLI's TUI is a bundle of its
 * own (scripts/bundle-cli.mjs), and an application may load two versions of the library. A class
 * is one per copy; a registered symbol is one per process.
 */
const RALPH_ERROR = Symbol.for('ralph-run.RalphError');

export class RalphError extends Error {
  /** `error instanceof RalphError` holds for a RalphError of any copy (subclasses check as usual). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== RalphError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return typeof value === 'object' && value !== null && RALPH_ERROR in value;
  }

  readonly [RALPH_ERROR] = true;
  override readonly name: string = 'RalphError';
  readonly code: ErrorCode;
  readonly exitCode: number;
  readonly hint: string | undefined;
  readonly location: SourceLocation | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { hint?: string; exitCode?: number; location?: SourceLocation; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.exitCode = options.exitCode ?? EXIT_INVALID_INPUT;
    this.hint = options.hint;
    this.location = options.location;
  }
}

/** Renders `file:line:column (field)` for messages; parts that are unknown are left out. */
export function formatLocation(location: SourceLocation): string {
  let text = location.file;
  if (location.line !== undefined) {
    text += `:${location.line}`;
    if (location.column !== undefined) text += `:${location.column}`;
  }
  if (location.field !== undefined && location.field !== '') text += ` (field ${location.field})`;
  return text;
}
