import { createHash } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckRunner } from './loop-types.js';

/**
 * The few whole files the claim checks compare with the integrity base (.npmrc, package.json,
 * the test runners' config files): one `git ls-tree` names those the base holds and their blob
 * ids; a file on disk whose git blob id is the same is unchanged without reading the base, and
 * only a changed one is read from the object store. One git call per claim instead of one per
 * candidate file (there are ~70), which was most of ralph's cost per iteration.
 */
export interface BaseFiles {
  /** The file at the base and now; undefined when both are absent or the bytes are the same. */
  difference(file: string): Promise<{ before?: string; now?: string } | undefined>;
  /** Files whose base blob in the object store is not what its id says (see readVerifiedBlob). */
  tampered(): string[];
}

export async function readBaseFiles(
  runner: CheckRunner,
  cwd: string,
  commit: string,
  files: readonly string[],
): Promise<BaseFiles> {
  // Plumbing with pathspecs relative to cwd (as `git show <commit>:./file` read them): the output
  // names them the same way. No diff driver, filter or replace ref is involved.
  const listing = await runner.git(
    [
      '--no-replace-objects',
      '-c',
      'core.quotePath=false',
      'ls-tree',
      '-r',
      '-z',
      commit,
      '--',
      ...files,
    ],
    cwd,
  );
  const blobs = new Map<string, string>();
  for (const entry of (listing ?? '').split('\0')) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.*)$/s.exec(entry);
    if (match?.[1] !== undefined && match[2] !== undefined) blobs.set(match[2], match[1]);
  }
  const tampered: string[] = [];
  return {
    tampered: () => [...tampered],
    async difference(file) {
      const blob = blobs.get(file);
      const now = await readFile(join(cwd, file)).catch(() => undefined);
      if (blob === undefined && now === undefined) return undefined;
      if (blob !== undefined && now !== undefined && gitBlobId(now, blob) === blob)
        return undefined;
      const read = blob === undefined ? undefined : await readVerifiedBlob(runner, cwd, blob);
      if (read === TAMPERED) tampered.push(file);
      const before = read === TAMPERED ? undefined : read;
      return {
        ...(before === undefined ? {} : { before }),
        ...(now === undefined ? {} : { now: now.toString('utf8') }),
      };
    },
  };
}

/** Git's object id of `content` as a blob, in the hash of `like` (SHA-1 or SHA-256 repositories). */
export function gitBlobId(content: Buffer, like: string): string {
  const algorithm = like.length === 64 ? 'sha256' : 'sha1';
  return createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest('hex');
}

export const TAMPERED = Symbol('tampered');

/**
 * A blob's text from the object store, checked against its id: git's cat-file does not hash what
 * it reads, so a loose object rewritten in .git/objects (attack 05b) would give ralph a base the
 * agent chose. undefined when git cannot read it; TAMPERED when the bytes are not the id's. The
 * text comes back as UTF-8; a blob that is not valid UTF-8 is checked byte for byte through
 * `git unpack-file` (a temporary file in the work tree, removed at once).
 */
export async function readVerifiedBlob(
  runner: CheckRunner,
  cwd: string,
  blob: string,
): Promise<string | typeof TAMPERED | undefined> {
  const text = await runner.git(['--no-replace-objects', 'cat-file', 'blob', blob], cwd);
  if (text === undefined) return undefined;
  if (gitBlobId(Buffer.from(text, 'utf8'), blob) === blob) return text;
  if (!text.includes('\uFFFD')) return TAMPERED;
  const name = (await runner.git(['--no-replace-objects', 'unpack-file', blob], cwd))?.trim();
  const top = (await runner.git(['rev-parse', '--show-toplevel'], cwd))?.trim();
  if (name === undefined || name === '' || top === undefined) return TAMPERED;
  const path = join(top, name);
  const bytes = await readFile(path).catch(() => undefined);
  await unlink(path).catch(() => undefined);
  return bytes !== undefined && gitBlobId(bytes, blob) === blob ? text : TAMPERED;
}
