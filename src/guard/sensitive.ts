import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { MAX_GLOB_NAMES, TooLargeToJudge } from './limits.js';
import type { GuardPolicy } from './policy.js';

/**
 * Secrets the agent may not read, copy, write or search: matched on the real path (after `..`
 * and symlinks), so `cat ./x/../.env` and a symlink to ~/.ssh/id_rsa are caught alike.
 */

const SENSITIVE_NAMES: readonly [RegExp, string][] = [
  [/^\.env$/, '.env'],
  [/^\.env\.(?!example$|sample$|template$).+/, '.env.*'],
  [/\.pem$/i, '*.pem'],
  [/\.key$/i, '*.key'],
  [/\.(p12|pfx)$/i, '*.p12/*.pfx'],
  [/^id_(rsa|dsa|ecdsa|ed25519)/, 'id_rsa*/id_ed25519*'],
  [/^credentials/i, 'credentials*'],
  [/^\.credentials\.json$/i, '.credentials.json'],
  [/^secrets/i, 'secrets*'],
  [/^\.(netrc|pgpass|git-credentials)$/, '.netrc/.pgpass/.git-credentials'],
];

/** A folder anywhere on the path that holds keys. */
const SENSITIVE_FOLDERS = new Set(['.ssh', '.aws', '.gnupg']);

const SENSITIVE_ABSOLUTE = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers', '/etc/sudoers.d'];

/** A process's environment holds the credentials of the agent's own CLI. */
const PROCESS_ENVIRONMENT = /^\/proc\/[^/]+(\/task\/[^/]+)?\/environ$/;

const SENSITIVE_IN_HOME = [
  '.npmrc',
  '.pypirc',
  '.docker/config.json',
  '.kube',
  '.config/gh/hosts.yml',
  '.claude/.credentials.json',
  '.netrc',
  '.config/gcloud',
  '.azure',
  '.vault-token',
  '.config/op',
  '.terraform.d',
  '.config/hub',
];

/** The rule that makes `path` (absolute, real) sensitive, or undefined. */
export function sensitiveRule(path: string, policy: GuardPolicy): string | undefined {
  if (matchesAny(path, policy.allowSensitiveFiles, policy)) return undefined;
  const parts = path.split(sep).filter((part) => part !== '');
  for (const [index, part] of parts.entries()) {
    if (SENSITIVE_FOLDERS.has(part)) return part;
    // Folders named secrets…/credentials… hold what their name says; the last part is a file.
    const last = index === parts.length - 1;
    for (const [pattern, rule] of SENSITIVE_NAMES) {
      if ((last || rule === 'credentials*' || rule === 'secrets*') && pattern.test(part))
        return rule;
    }
  }
  for (const absolute of SENSITIVE_ABSOLUTE) if (isWithin(path, absolute)) return absolute;
  if (PROCESS_ENVIRONMENT.test(path)) return '/proc/*/environ';
  for (const name of SENSITIVE_IN_HOME) {
    if (isWithin(path, join(policy.homeDir, name))) return `~/${name}`;
  }
  if (matchesAny(path, policy.sensitiveFiles, policy)) return 'guard.sensitiveFiles';
  return undefined;
}

/** Names that stand for every sensitive file when a glob cannot be expanded for real. */
const SAMPLE_SECRETS = [
  '.env',
  '.env.local',
  'id_rsa',
  'id_ed25519',
  'server.pem',
  'server.key',
  'credentials',
  'credentials.json',
  'secrets',
  'secrets.yaml',
  '.netrc',
];

/**
 * Whether a glob argument (`*.pem`, `.e*`, `*`) may name a sensitive file: its last part is
 * matched against the folder's real entries when the folder is literal, else against samples.
 */
export function globSensitiveRule(pattern: string, policy: GuardPolicy): string | undefined {
  const folder = dirname(pattern);
  const name = basename(pattern);
  if (/[*?[]/.test(folder)) {
    const regex = globToRegExp(name, true);
    for (const sample of SAMPLE_SECRETS) {
      if (regex.test(sample)) return sensitiveRule(join(policy.projectRoot, sample), policy);
    }
    return sensitiveRule(folder.replace(/[*?[].*$/, ''), policy);
  }
  const inFolder = sensitiveRule(folder, policy);
  if (inFolder !== undefined) return inFolder;
  const entries = listing(folder, policy);
  if (entries === undefined) return undefined; // nothing there: the shell passes it on unexpanded
  const regex = globToRegExp(name, true);
  for (const entry of entries) {
    if (!regex.test(entry)) continue;
    const rule = sensitiveRule(join(folder, entry), policy);
    if (rule !== undefined) return rule;
  }
  return undefined;
}

/** A folder's names, read once per decision, counted against MAX_GLOB_NAMES. */
function listing(folder: string, policy: GuardPolicy): readonly string[] | undefined {
  const scan = policy.globScan;
  let entries = scan?.listings.get(folder);
  if (entries === undefined) {
    try {
      entries = readdirSync(folder);
    } catch {
      return undefined;
    }
    scan?.listings.set(folder, entries);
  }
  if (scan !== undefined) {
    scan.names += entries.length;
    if (scan.names > MAX_GLOB_NAMES)
      throw new TooLargeToJudge(
        `the command's globs are matched against more than ${MAX_GLOB_NAMES} file names; name the files or narrow the patterns`,
      );
  }
  return entries;
}

/** `*` and `?` within one path part, `**` across parts, `[…]` as written. */
export function globToRegExp(glob: string, leadingDotExplicit = false): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (char === '*') {
      if (glob[i + 1] === '*') {
        source += '.*';
        i += 1;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) source += '\\[';
      else {
        source += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  // The shell's rule: a leading dot is matched only by a pattern that starts with one.
  const dot = leadingDotExplicit && !glob.startsWith('.') ? '(?!\\.)' : '';
  return new RegExp(`^${dot}${source}$`);
}

function matchesAny(path: string, patterns: readonly string[], policy: GuardPolicy): boolean {
  const inProject = relative(policy.projectRoot, path);
  for (const pattern of patterns) {
    if (!pattern.includes('/')) {
      if (globToRegExp(pattern).test(basename(path))) return true;
      continue;
    }
    const full = pattern.startsWith('~/')
      ? join(policy.homeDir, pattern.slice(2))
      : pattern.startsWith('/')
        ? pattern
        : undefined;
    const regex = globToRegExp(full ?? pattern);
    if (regex.test(full === undefined ? inProject : path)) return true;
  }
  return false;
}

export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
