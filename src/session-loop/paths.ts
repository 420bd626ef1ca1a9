import { join } from 'node:path';

/**
 * File names of in-session loops (the ralph-loop-mac layout, so existing loops keep working):
 * everything lives in `<project>/.claude/`, next to Claude Code's own settings. This module is on
 * the Stop hook's fast path: it must stay free of imports beyond node:path.
 */

/** 8 characters, lowercase letters and digits: safe in a file name and easy to type. */
export const LOOP_ID_PATTERN = /^[a-z0-9]{8}$/;

const STATE_FILE = /^ralph-loop-(.+)\.local\.md$/;

export interface SessionLoopPaths {
  claudeDir: string;
  state: (id: string) => string;
  journal: (id: string) => string;
  /** The folder lock (state/lock.ts) that serialises every read-modify-write of the loop files. */
  lockDir: string;
  settingsLocal: string;
}

export function sessionLoopPaths(projectDir: string): SessionLoopPaths {
  const claudeDir = join(projectDir, '.claude');
  return {
    claudeDir,
    state: (id) => join(claudeDir, `ralph-loop-${id}.local.md`),
    journal: (id) => join(claudeDir, `ralph-journal-${id}.md`),
    lockDir: claudeDir,
    settingsLocal: join(claudeDir, 'settings.local.json'),
  };
}

/**
 * The loop id a directory entry names, or undefined when it is no loop state file. Ids that do
 * not fit LOOP_ID_PATTERN are still returned: such a file is reported as corrupt, not ignored.
 */
export function loopIdOfFileName(name: string): string | undefined {
  return STATE_FILE.exec(name)?.[1];
}
