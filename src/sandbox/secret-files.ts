import { readdirSync, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The project's secret files anywhere in its tree, not only at its top: `.env*` (but
 * `.env.example`) in any folder, and what the guard's `sensitiveFiles` names. The walk is
 * bounded (depth, entries) and skips what holds dependencies or history, so a large tree costs
 * a bounded time per sandboxed command; symlinks are not followed (the link's target is what a
 * read reaches, and a target outside the project is not writable or listed anyway).
 */

export interface SecretWalkOptions {
  /** Globs from `guard.sensitiveFiles`: a name glob (no `/`), or a path glob relative to the root. */
  patterns: readonly string[];
  /** Globs from `guard.allowSensitiveFiles`: files that look secret but are not. */
  allow: readonly string[];
  maxDepth?: number;
  maxEntries?: number;
}

const SKIPPED = new Set(['node_modules', '.git', '.venv', 'venv', '__pycache__', 'target']);

export function findSecretFiles(root: string, options: SecretWalkOptions): string[] {
  const matchers = options.patterns.map(globMatcher);
  const allowed = options.allow.map(globMatcher);
  const maxDepth = options.maxDepth ?? 8;
  let budget = options.maxEntries ?? 50_000;
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget < 0) return;
      const path = join(dir, entry.name);
      const rel = relative(root, path);
      const secret = isEnvFile(entry.name) || matchers.some((match) => match(entry.name, rel));
      if (secret && !allowed.some((match) => match(entry.name, rel))) {
        if (entry.isFile() || entry.isDirectory()) found.push(path);
        continue;
      }
      if (entry.isDirectory() && !SKIPPED.has(entry.name) && depth < maxDepth) {
        visit(path, depth + 1);
      }
    }
  };
  visit(root, 1);
  return found;
}

/** `.env` and `.env.*` but `.env.example` (documentation, no values). */
export function isEnvFile(name: string): boolean {
  return /^\.env(\..+)?$/.test(name) && name !== '.env.example';
}

/** A glob on the name (no `/`) or on the path relative to the root (`**` crosses folders). */
function globMatcher(pattern: string): (name: string, rel: string) => boolean {
  if (pattern.startsWith('/') || pattern.startsWith('~/')) return () => false;
  const regex = globRegExp(pattern);
  return pattern.includes('/') ? (_name, rel) => regex.test(rel) : (name) => regex.test(name);
}

function globRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? '';
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
