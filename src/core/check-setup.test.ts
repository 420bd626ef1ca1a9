import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitBlobId } from './base-files.js';
import { findCheckSetupChanges, scriptsRunBy } from './check-setup.js';
import type { CheckRunner } from './loop-types.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A runner whose object store holds the files as they were (absent: not listed): `ls-tree`
 * lists them under their blob ids, `cat-file blob ID` answers with the text.
 */
function runnerWith(before: Record<string, string>): CheckRunner {
  const files = Object.keys(before);
  // Real blob ids: ralph checks each blob it reads against its id.
  const blobOf = (index: number) =>
    gitBlobId(Buffer.from(before[files[index] ?? ''] ?? ''), 'x'.repeat(40));
  return {
    shell: () => Promise.reject(new Error('no shell here')),
    git: (args) => {
      if (args.includes('ls-tree')) {
        const asked = args.slice(args.indexOf('--') + 1);
        const listed = files
          .map((file, index) => ({ file, index }))
          .filter(({ file }) => asked.includes(file))
          .map(({ file, index }) => `100644 blob ${blobOf(index)}\t${file}\0`);
        return Promise.resolve(listed.join(''));
      }
      const index = files.findIndex((_, each) => blobOf(each) === args.at(-1));
      return Promise.resolve(index < 0 ? undefined : before[files[index] ?? '']);
    },
  };
}

const START = { commit: 'start1', untracked: new Set<string>() };
const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'p', scripts });

async function project(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-check-setup-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('scriptsRunBy', () => {
  it('names the scripts the commands run, and test', () => {
    expect(scriptsRunBy(['npm run lint && pnpm typecheck', 'npm ci', 'yarn test:unit'])).toEqual([
      'test',
      'lint',
      'typecheck',
      'test:unit',
    ]);
  });
});

describe('findCheckSetupChanges', () => {
  it('reports a rewritten test script and a new .npmrc', async () => {
    const cwd = await project({
      'package.json': pkg({ test: 'exit 0', build: 'tsc' }),
      '.npmrc': 'script-shell=/bin/true\n',
    });
    const runner = runnerWith({ 'package.json': pkg({ test: 'node --test', build: 'tsc' }) });
    expect(await findCheckSetupChanges(runner, cwd, START, ['npm test'])).toEqual([
      'changed .npmrc, which decides how npm runs the checks',
      'changed the package.json script "test", which a check runs',
    ]);
  });

  it('lets other scripts and other package.json fields change', async () => {
    const cwd = await project({
      'package.json': JSON.stringify({
        name: 'p',
        dependencies: { zod: '4' },
        scripts: { test: 'node --test', build: 'tsc -p .' },
      }),
    });
    const runner = runnerWith({ 'package.json': pkg({ test: 'node --test', build: 'tsc' }) });
    expect(await findCheckSetupChanges(runner, cwd, START, ['npm test'])).toEqual([]);
  });

  it('reports a pre-script added around a script a check runs', async () => {
    const cwd = await project({
      'package.json': pkg({
        test: 'node --test',
        prelint: 'git checkout -- test',
        lint: 'eslint .',
      }),
    });
    const runner = runnerWith({ 'package.json': pkg({ test: 'node --test', lint: 'eslint .' }) });
    expect(await findCheckSetupChanges(runner, cwd, START, ['npm run lint'])).toEqual([
      'changed the package.json script "prelint", which a check runs',
    ]);
  });

  it('reports a removed script, and lets a project without one get its first', async () => {
    const cwd = await project({ 'package.json': pkg({ test: 'node --test' }) });
    const runner = runnerWith({ 'package.json': pkg({ test: 'node --test', lint: 'eslint .' }) });
    expect(await findCheckSetupChanges(runner, cwd, START, ['npm run lint'])).toEqual([
      'changed the package.json script "lint", which a check runs',
    ]);
    expect(await findCheckSetupChanges(runnerWith({}), cwd, START, ['npm test'])).toEqual([]);
  });
});
