/** One line of the preflight (preflight.ts runs the checks; preflight-hooks.ts is one of them). */

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface PreflightCheck {
  /**
   * Stable machine name: branch, protected-branch, folder, files, hooks, task-list, spec, sync,
   * placeholders, agent, nested.
   */
  name: string;
  status: CheckStatus;
  message: string;
  details: string[];
  hint: string | undefined;
}
