import { dirname, join } from 'node:path';

/**
 * What the agent's process tree may see and change (issue 11, design.md §8), as an ordered list
 * of mounts over a read-only view of the whole file system. Pure: what exists on disk comes in
 * through `kindOf`, so every rule is unit-tested without touching the disk. Later mounts cover
 * earlier ones, so the order is: writable areas first, then the read-only islands inside them,
 * then the secrets hidden last (a secret inside a writable folder stays hidden).
 */

export type PathKind = 'file' | 'dir' | 'missing';

export type Mount =
  | { kind: 'bind'; path: string }
  | { kind: 'ro-bind'; path: string }
  /** The run's private temp folder, seen as /tmp. */
  | { kind: 'tmp'; source: string; path: '/tmp' }
  /** A folder replaced by an empty one. */
  | { kind: 'hide-dir'; path: string }
  /** A file replaced by an empty, read-only one (`source`). */
  | { kind: 'hide-file'; source: string; path: string };

export interface SandboxPolicyInput {
  /** The work tree the agent works in: writable. */
  projectRoot: string;
  /** Git folders outside the work tree (a linked worktree's, its common one): writable. */
  outsideGitDirs: readonly string[];
  /** Every git folder (inside or outside): its hooks and config are read-only. */
  gitDirs: readonly string[];
  homeDir: string;
  /** The run's private temp folder on the host; the agent sees it as /tmp (and TMPDIR). */
  tmpDir: string;
  /**
   * Where the programs the run starts live (PATH, the command's own folder). Those under the
   * host's /tmp stay visible, read-only, behind the private /tmp: a checkout or an agent CLI
   * installed there must still start.
   */
  programDirs?: readonly string[] | undefined;
  /** An empty file outside every writable place: what hidden files show. */
  emptyFile: string;
  /** ralph's control files (loop and project): read-only. */
  controlPaths: readonly string[];
  /** The project's secret files in any folder (`.env*` but `.env.example`, guard.sensitiveFiles): hidden. */
  envFiles: readonly string[];
  /** The agent CLI's state folder (CLAUDE_CONFIG_DIR, default ~/.claude): writable. */
  agentStateDir: string;
  extraWritable: readonly string[];
  extraReadOnly: readonly string[];
  extraHidden: readonly string[];
  kindOf: (path: string) => PathKind;
  /** The names in the agent's environment: the secrets among them are removed inside. */
  envNames: readonly string[];
}

export interface SandboxPolicy {
  mounts: Mount[];
  /** Variables set inside. */
  env: Record<string, string>;
  /** Variables removed inside. */
  unsetEnv: string[];
}

/** Under the home folder: the caches ordinary tools write (npm, pip, cargo, go, …). */
export const HOME_CACHES = [
  '.npm',
  '.cache',
  '.cargo',
  'go',
  '.rustup',
  '.yarn',
  '.pnpm-store',
  '.bun',
  '.m2',
  '.gradle',
  '.local/share/pnpm',
] as const;

/** Under the home folder: credentials no agent needs to see. */
export const HOME_SECRETS = [
  '.ssh',
  '.aws',
  '.config/gcloud',
  '.azure',
  '.kube',
  '.docker/config.json',
  '.netrc',
  '.npmrc',
  '.vault-token',
  '.git-credentials',
  '.config/gh',
  '.pgpass',
  '.gnupg',
] as const;

/** Inside the project: Claude Code's settings and MCP servers, which would switch the guard off. */
export const PROJECT_READ_ONLY = ['.claude', '.mcp.json'] as const;

export function sandboxPolicy(input: SandboxPolicyInput): SandboxPolicy {
  const { homeDir, kindOf } = input;
  const existing = (path: string) => kindOf(path) !== 'missing';
  const home = (relative: string) => join(homeDir, relative);
  const mounts: Mount[] = [{ kind: 'tmp', source: input.tmpDir, path: '/tmp' }];
  // Before the writable binds, so a work tree inside one of these stays writable.
  mounts.push(
    ...unique(hostTmpTops(input.programDirs ?? []))
      .filter(existing)
      .map((path) => bind('ro-bind', path)),
  );
  const writable = [
    ...HOME_CACHES.map(home),
    input.agentStateDir,
    // Claude Code's own state file beside its folder (when CLAUDE_CONFIG_DIR is not set).
    home('.claude.json'),
    input.projectRoot,
    ...input.outsideGitDirs,
    ...input.extraWritable,
  ];
  mounts.push(
    ...unique(writable)
      .filter(existing)
      .map((path) => bind('bind', path)),
  );
  // A mount point cannot be renamed (EBUSY), but a folder that only holds mount points can: an
  // agent that renames .git or a loop folder and puts a copy in its place gets a .git/config or
  // hooks/ of its own, which git and the next run use outside the sandbox. So every folder from
  // the work tree down to each protected path is bound onto itself (still writable).
  mounts.push(
    ...pinnedFolders(input)
      .filter(existing)
      .map((path) => bind('bind', path)),
  );
  const readOnly = [
    join(input.agentStateDir, 'settings.json'),
    ...input.gitDirs.flatMap((dir) => [join(dir, 'hooks'), join(dir, 'config')]),
    ...PROJECT_READ_ONLY.map((name) => join(input.projectRoot, name)),
    ...input.controlPaths,
    ...input.extraReadOnly,
  ];
  mounts.push(
    ...unique(readOnly)
      .filter(existing)
      .map((path) => bind('ro-bind', path)),
  );
  const hidden = [...HOME_SECRETS.map(home), ...input.envFiles, ...input.extraHidden];
  for (const path of unique(hidden)) {
    const kind = kindOf(path);
    if (kind === 'dir') mounts.push({ kind: 'hide-dir', path });
    else if (kind === 'file') mounts.push({ kind: 'hide-file', source: input.emptyFile, path });
  }
  // Claude Code's own temp folder (CLAUDE_CODE_TMPDIR) goes to the private /tmp too: one set
  // outside the writable places would keep it from starting.
  const unsetEnv = input.envNames.filter((name) => isSecretVariable(name, input.envNames));
  return { mounts, env: { TMPDIR: '/tmp', CLAUDE_CODE_TMPDIR: '/tmp' }, unsetEnv };
}

/** Names that hold credentials by convention (GITHUB_TOKEN, DB_PASSWORD, AWS_SECRET_ACCESS_KEY, …). */
const SECRET_NAME =
  /(^|_)(TOKEN|SECRET|PASSWORD|PASSWD|PASS|PAT|KEY|APIKEY|API_KEY|ACCESS_KEY|ACCESS_KEY_ID|PRIVATE_KEY|PRIVATEKEY|CREDENTIALS|DSN|WEBHOOK|WEBHOOK_URL|AUTH|AUTH_HEADER|SK)(_|$)|^(SSH_AUTH_SOCK|DATABASE_URL|[A-Z0-9_]*CONNECTION_STRING)$/i;

/**
 * Whether a variable is a credential the agent's tools must not see. The agent CLI's own stay:
 * ANTHROPIC_* and CLAUDE_* (its login), RALPH_GUARD_TOKEN (its guard hook sends it), and the
 * cloud credentials Claude Code uses when set to run on Bedrock (AWS_*) or Vertex (Google).
 */
export function isSecretVariable(name: string, allNames: readonly string[] = []): boolean {
  if (/^(ANTHROPIC_|CLAUDE_)/.test(name) || name === 'RALPH_GUARD_TOKEN') return false;
  if (name.startsWith('AWS_') && allNames.includes('CLAUDE_CODE_USE_BEDROCK')) return false;
  if (name === 'GOOGLE_APPLICATION_CREDENTIALS' && allNames.includes('CLAUDE_CODE_USE_VERTEX'))
    return false;
  return SECRET_NAME.test(name);
}

/** The project's `.env*` files at its top that hold secrets (`.env.example` is documentation). */
export function isSecretEnvFile(name: string): boolean {
  return /^\.env(\..+)?$/.test(name) && name !== '.env.example';
}

/** The folders between the work tree and each git folder or control path inside it. */
function pinnedFolders(input: SandboxPolicyInput): string[] {
  const root = input.projectRoot;
  const folders: string[] = [];
  for (const path of [...input.gitDirs, ...input.controlPaths]) {
    if (!path.startsWith(`${root}/`)) continue;
    const start = input.gitDirs.includes(path) ? path : dirname(path);
    for (let folder = start; folder.startsWith(`${root}/`); folder = dirname(folder)) {
      folders.push(folder);
    }
  }
  // Outer folders first: a bind of a folder would cover binds made inside it before.
  return unique(folders).sort((a, b) => a.length - b.length);
}

function bind(kind: 'bind' | 'ro-bind', path: string): Mount {
  return { kind, path };
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** The top folders under the host's /tmp (`/tmp/x` of `/tmp/x/y/bin`) that hold these paths. */
function hostTmpTops(paths: readonly string[]): string[] {
  return paths.flatMap((path) => {
    const match = /^\/tmp\/([^/]+)/.exec(path);
    return match?.[1] === undefined ? [] : [`/tmp/${match[1]}`];
  });
}
