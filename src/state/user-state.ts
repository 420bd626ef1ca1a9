import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * ralph's own state outside every repository: `$XDG_STATE_HOME/ralph`, else
 * `<home>/.local/state/ralph` (a relative XDG_STATE_HOME is ignored, as the XDG spec asks). What
 * the agent must not rewrite lives here — the integrity base, the test counts, the evidence key
 * — never in the work tree, where the agent writes. With the OS sandbox on, the agent cannot
 * write outside the work tree; with it off, the agent runs as the same user, and this folder only
 * keeps out an agent that does not go looking for it.
 */
export function userStateDir(
  env: Readonly<Record<string, string | undefined>>,
  homeDir: string = env.HOME ?? homedir(),
): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(homeDir, '.local', 'state');
  return join(base, 'ralph');
}

/** One loop directory's folder in the state dir, named by its real path (links resolved). */
export function loopStateDir(stateDir: string, loopDir: string): string {
  let path = resolve(loopDir);
  try {
    path = realpathSync(path);
  } catch {
    // Not there (yet): its resolved path names it.
  }
  const key = createHash('sha256').update(path).digest('hex').slice(0, 24);
  return join(stateDir, 'loops', key);
}
