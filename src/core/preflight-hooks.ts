import { readdir } from 'node:fs/promises';
import { HOOK_POINTS, loopPaths } from '../state/paths.js';
import type { PreflightCheck } from './preflight-check.js';

/**
 * The hook scripts in DIR/hooks/: which points have one, and any file there that no point will
 * ever run (`post-iteration.sh`, `pre_run` without .sh), which is almost always a typo.
 */
export async function checkUserHooks(loopDir: string, checks: PreflightCheck[]): Promise<void> {
  const folder = loopPaths(loopDir).hooksDir;
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return;
  const known = new Set(HOOK_POINTS.map((point) => `${point}.sh`));
  const names = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  const hooks = names.filter((name) => known.has(name)).map((name) => name.slice(0, -3));
  const strays = names.filter((name) => !known.has(name) && !name.startsWith('.'));
  if (hooks.length > 0)
    checks.push({
      name: 'hooks',
      status: 'pass',
      message: `Hooks: ${hooks.join(', ')}`,
      details: [],
      hint: undefined,
    });
  if (strays.length > 0)
    checks.push({
      name: 'hooks',
      status: 'warn',
      message: `Not a hook point, never run: ${strays.map((name) => `hooks/${name}`).join(', ')}`,
      details: [],
      hint: `hook scripts are named ${HOOK_POINTS.map((point) => `${point}.sh`).join(', ')}`,
    });
}
