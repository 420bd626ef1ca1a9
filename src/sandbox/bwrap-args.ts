import type { Mount, SandboxPolicy } from './policy.js';

/**
 * A policy as a bubblewrap command line (Linux). The whole file system is mounted read-only, a
 * fresh /dev and /proc (of the new pid namespace: ralph and every other process outside are
 * invisible and cannot be signalled), then the policy's mounts in order.
 *
 * --die-with-parent: the tree dies with bwrap's parent (ralph). --unshare-pid: when the command
 * ends, the namespace's init ends and the kernel kills everything left in it, `setsid` daemons
 * included — nothing outlives an iteration. --new-session only where the command shares a
 * terminal (`ralph sandbox`): it stops TIOCSTI input injection into that terminal. ralph starts
 * the agent in a session of its own without a terminal, and there a new session would only put
 * the agent out of reach of the group signals that stop it gracefully.
 */

export interface BwrapOptions {
  newSession: boolean;
}

export function bwrapArgs(
  policy: SandboxPolicy,
  command: { file: string; args: readonly string[] },
  options: BwrapOptions,
): string[] {
  // --cap-drop ALL: run as root (containers, CI), bubblewrap makes no user namespace and the
  // command would keep CAP_SYS_ADMIN, enough to unmount every read-only or hiding mount below.
  const args = ['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL'];
  if (options.newSession) args.push('--new-session');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/dev/shm');
  for (const mount of policy.mounts) args.push(...mountArgs(mount));
  for (const [name, value] of Object.entries(policy.env)) args.push('--setenv', name, value);
  for (const name of policy.unsetEnv) args.push('--unsetenv', name);
  args.push('--', command.file, ...command.args);
  return args;
}

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'bind':
      return ['--bind', mount.path, mount.path];
    case 'ro-bind':
      return ['--ro-bind', mount.path, mount.path];
    case 'tmp':
      return ['--bind', mount.source, mount.path];
    case 'hide-dir':
      return ['--tmpfs', mount.path, '--remount-ro', mount.path];
    case 'hide-file':
      return ['--ro-bind', mount.source, mount.path];
  }
}
