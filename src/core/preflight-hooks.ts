import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { HOOK_POINTS, loopPaths } from '../state/paths.js';
import type { PreflightCheck } from './preflight-check.js';

/**
 * The hook scripts in DIR/hooks/: which points have some (`<point>.sh` and `<point>.d/*.sh`), and
 * anything there that no point will ever run (`post-iteration.sh`, `pre_run` without .sh, a
 * `pre-run.d/` folder, `notes.txt` in `pre_run.d/`), which is almost always a typo. Other folders
 * hold a hook's own files (code, settings) and are left alone.
 */
export async function checkUserHooks(loopDir: string, checks: PreflightCheck[]): Promise<void> {
  const folder = loopPaths(loopDir).hooksDir;
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return;
  const scripts = new Set(HOOK_POINTS.map((point) => `${point}.sh`));
  const folders = new Set(HOOK_POINTS.map((point) => `${point}.d`));
  const counts = new Map<string, number>();
  const strays: string[] = [];
  const count = (point: string, by: number) => counts.set(point, (counts.get(point) ?? 0) + by);
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isFile() && scripts.has(entry.name)) count(entry.name.slice(0, -3), 1);
    else if (entry.isDirectory() && folders.has(entry.name)) {
      const inside = await readdir(join(folder, entry.name)).catch(() => [] as string[]);
      const shown = inside.filter((name) => !name.startsWith('.')).sort();
      const run = shown.filter((name) => name.endsWith('.sh'));
      if (run.length > 0) count(entry.name.slice(0, -2), run.length);
      strays.push(
        ...shown.filter((name) => !name.endsWith('.sh')).map((name) => `${entry.name}/${name}`),
      );
    } else if (entry.isDirectory() && !entry.name.endsWith('.d')) {
      // A folder of a hook's own files (templates' hooks/visual-diff/): never run, on purpose.
      continue;
    } else if (entry.isFile() || entry.isDirectory()) {
      strays.push(entry.isDirectory() ? `${entry.name}/` : entry.name);
    }
  }
  const hooks = HOOK_POINTS.filter((point) => counts.has(point)).map((point) => {
    const n = counts.get(point) ?? 0;
    return n === 1 ? point : `${point} (${n} scripts)`;
  });
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
      hint: `hook scripts are named ${HOOK_POINTS.map((point) => `${point}.sh`).join(', ')}, or are *.sh files in a <point>.d/ folder (run in name order after <point>.sh)`,
    });
}
