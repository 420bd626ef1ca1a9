import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findSecretFiles, isEnvFile } from './secret-files.js';

let root = '';
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function tree(files: readonly string[]): string {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-secret-files-')));
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), 'x');
  }
  return root;
}

const found = (dir: string, patterns: string[] = [], allow: string[] = [], maxDepth?: number) =>
  findSecretFiles(dir, { patterns, allow, maxDepth })
    .map((path) => relative(dir, path))
    .sort();

describe('findSecretFiles', () => {
  it('finds .env files in every folder but .env.example, and skips node_modules and .git', () => {
    const dir = tree([
      '.env',
      'services/api/.env.local',
      'services/api/.env.example',
      'node_modules/pkg/.env',
      '.git/.env',
      'src/index.ts',
    ]);
    expect(found(dir)).toEqual(['.env', 'services/api/.env.local']);
  });

  it("adds the guard's sensitiveFiles (name and path globs) and leaves out allowSensitiveFiles", () => {
    const dir = tree(['docs/private-notes.txt', 'keys/deploy.pem', 'config/.env.test', 'a.txt']);
    expect(found(dir, ['private-*.txt', 'keys/**'], ['.env.test'])).toEqual([
      'docs/private-notes.txt',
      'keys/deploy.pem',
    ]);
  });

  it('stops at the depth limit', () => {
    const dir = tree(['a/b/c/.env']);
    expect(found(dir, [], [], 2)).toEqual([]);
    expect(found(dir, [], [], 4)).toEqual(['a/b/c/.env']);
  });

  it('tells secret .env names from documentation', () => {
    expect(['.env', '.env.local', '.env.production'].every(isEnvFile)).toBe(true);
    expect(['.env.example', 'env', '.envrc'].some(isEnvFile)).toBe(false);
  });
});
