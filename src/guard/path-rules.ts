import { isAbsolute, resolve } from 'node:path';
import { realPath, type GuardPolicy } from './policy.js';
import { isWithin, sensitiveRule } from './sensitive.js';

/**
 * Where the agent may write and delete: inside the project (not the project root itself, not
 * its protected control files) and inside the configured writable folders (default /tmp) —
 * never the home directory outside the project, never anything else. Paths are judged after
 * `..` and symlinks are resolved, so `x/../../etc` and a link to `/` are seen for what they are.
 */

export type Access = 'write' | 'delete';

export interface PathProblem {
  rule: string;
  reason: string;
}

/** Files every program may write: the terminal and the bit bucket. */
const DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

/** An absolute path for `value` (already tilde-expanded); undefined when the cwd is unknown. */
export function absolutePath(value: string, cwd: string | undefined): string | undefined {
  if (isAbsolute(value)) return resolve(value);
  return cwd === undefined ? undefined : resolve(cwd, value);
}

export function writeProblem(
  path: string,
  access: Access,
  policy: GuardPolicy,
): PathProblem | undefined {
  if (DEVICES.test(path)) return undefined;
  const real = realPath(path);
  const shown = real === path ? path : `${path} (really ${real})`;
  const verb = access === 'delete' ? 'deletes' : 'writes';
  const sensitive = sensitiveRule(real, policy);
  if (sensitive !== undefined) {
    return {
      rule: 'sensitive-file',
      reason: `${verb} ${shown}, a secret (${sensitive}); the guard keeps secrets out of reach`,
    };
  }
  const { projectRoot, homeDir } = policy;
  if (isWithin(real, projectRoot)) {
    const guarded = policy.protectedPaths.find((protectedPath) => isWithin(real, protectedPath));
    if (guarded !== undefined) {
      return {
        rule: 'protected-path',
        reason: `${verb} ${shown}: ralph and git control files cannot be changed by the agent`,
      };
    }
    // A folder holding one (`.ralph`, `.claude`): deleting, moving or replacing it would take
    // the control file with it (`mv new .ralph` swaps in another config.yaml).
    const holder = policy.protectedPaths.find(
      (protectedPath) =>
        real !== projectRoot && real !== protectedPath && isWithin(protectedPath, real),
    );
    if (holder !== undefined) {
      return {
        rule: 'protected-path',
        reason: `${verb} ${shown}, which holds ${holder}: ralph and git control files cannot be changed by the agent`,
      };
    }
    if (real === projectRoot && access === 'delete') {
      return {
        rule: 'project-root',
        reason: `deletes the project root ${projectRoot} itself; delete only what is inside it`,
      };
    }
    return undefined;
  }
  if (isWithin(projectRoot, real)) {
    return {
      rule: 'outside-project',
      reason: `${verb} ${shown}, which holds the whole project ${projectRoot}`,
    };
  }
  if (isWithin(real, homeDir)) {
    return {
      rule: 'outside-project',
      reason: `${verb} ${shown} in the home directory, outside the project ${projectRoot}`,
    };
  }
  for (const root of policy.writableRoots) {
    if (!isWithin(real, root)) continue;
    if (real === root && access === 'delete')
      return { rule: 'outside-project', reason: `deletes ${root} itself` };
    return undefined;
  }
  return {
    rule: 'outside-project',
    reason: `${verb} ${shown}, outside the project ${projectRoot}${
      policy.writableRoots.length === 0 ? '' : ` and ${policy.writableRoots.join(', ')}`
    }`,
  };
}

/** Inside the project or a writable folder: where the agent may have put a file itself. */
export function isAgentWritable(path: string, policy: GuardPolicy): boolean {
  const real = realPath(path);
  return (
    isWithin(real, policy.projectRoot) || policy.writableRoots.some((root) => isWithin(real, root))
  );
}

/** Notes that the command being judged writes `path` (absolute), and with what program. */
export function recordWrite(policy: GuardPolicy, path: string, writer: string): void {
  policy.written?.set(realPath(path), writer === '' ? 'a redirection' : writer);
}

/** Writers that change a file's metadata, not what it says (`chmod +x x.sh && ./x.sh`). */
const METADATA_WRITERS = new Set([
  'chmod',
  'chown',
  'chgrp',
  'touch',
  'setfacl',
  'chattr',
  'mkdir',
]);

/**
 * The program that writes `path` (absolute) in the command being judged, before or besides
 * running it; undefined when none does, or only its metadata changes. Named paths only (a glob
 * write such as `rm -f *.log` is not recorded), and the project root itself does not count (`cp
 * notes.md .` would otherwise taint every script).
 */
export function writerOf(path: string, policy: GuardPolicy): string | undefined {
  const real = realPath(path);
  for (const [written, writer] of policy.written ?? []) {
    if (METADATA_WRITERS.has(writer)) continue;
    // The file itself, or a folder around it (`cp -r new/. scripts && bash scripts/x.sh`).
    if (written === real || (written !== policy.projectRoot && isWithin(real, written)))
      return writer;
  }
  return undefined;
}

/** A read of `path` (absolute) is refused only for secrets. */
export function readProblem(path: string, policy: GuardPolicy): PathProblem | undefined {
  const real = realPath(path);
  const rule = sensitiveRule(real, policy) ?? sensitiveRule(path, policy);
  if (rule === undefined) return undefined;
  const shown = real === path ? path : `${path} (really ${real})`;
  return {
    rule: 'sensitive-file',
    reason: `reads ${shown}, a secret (${rule}); the guard keeps secrets out of reach`,
  };
}

/**
 * A file tool's read (Read, Grep, Glob): secrets are refused, and so is everything outside the
 * project, the writable folders and guard.readablePaths — the agent's work is in the project.
 */
export function fileToolReadProblem(
  path: string,
  policy: GuardPolicy,
  sessionFolder?: string,
): PathProblem | undefined {
  const secret = readProblem(path, policy);
  if (secret !== undefined) return secret;
  const real = realPath(path);
  const roots = [policy.projectRoot, ...policy.writableRoots, ...policy.readableRoots];
  if (sessionFolder !== undefined) roots.push(realPath(sessionFolder));
  if (roots.some((root) => isWithin(real, root))) return undefined;
  const shown = real === path ? path : `${path} (really ${real})`;
  return {
    rule: 'outside-project',
    reason: `reads ${shown}, outside the project ${policy.projectRoot}; guard.readablePaths lists further folders the file tools may read`,
  };
}
