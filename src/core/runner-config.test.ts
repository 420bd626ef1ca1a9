import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitOnlyRunner, ISOLATED_GIT_ENV } from '../../test/git-check-runner.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { StartPoint } from './loop-types.js';
import { readBaseFiles } from './base-files.js';
import {
  executablesRunBy,
  findRunnerConfigChanges,
  hashExecutables,
  runnerConfigFiles,
} from './runner-config.js';
import { readStartPoint } from './test-tree.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const env = ISOLATED_GIT_ENV;
const runner = gitOnlyRunner();

const PYPROJECT = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';

async function project(): Promise<{ dir: string; start: StartPoint }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-runner-config-'));
  dirs.push(dir);
  const file = (path: string, text: string) => writeFile(join(dir, path), text);
  await file('package.json', JSON.stringify({ name: 'p', jest: { testTimeout: 5000 } }));
  await file('vitest.config.js', 'export default { test: {} };\n');
  await file('pyproject.toml', PYPROJECT);
  await mkdir(join(dir, 'node_modules/vitest'), { recursive: true });
  await mkdir(join(dir, 'node_modules/.bin'));
  await file('node_modules/vitest/cli.js', '#!/usr/bin/env node\nrunTests();\n');
  await chmod(join(dir, 'node_modules/vitest/cli.js'), 0o755);
  await symlink('../vitest/cli.js', join(dir, 'node_modules/.bin/vitest'));
  await file('.gitignore', 'node_modules\n');
  execFileSync('git', ['init', '-q'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'one'], {
    cwd: dir,
    env,
  });
  const start = await readStartPoint(runner, dir);
  const executables = await hashExecutables(dir, executablesRunBy(['npx vitest run']));
  return { dir, start: { ...start!, executables } };
}

describe('findRunnerConfigChanges', () => {
  it('reports runner config and the executable a check starts, changed since the base', async () => {
    const { dir, start } = await project();
    const file = (path: string, text: string) => writeFile(join(dir, path), text);
    await file('vitest.config.js', "export default { test: { exclude: ['**/mul*'] } };\n");
    await file(
      'package.json',
      JSON.stringify({ name: 'p', jest: { testPathIgnorePatterns: ['mul'] } }),
    );
    await file('pyproject.toml', PYPROJECT.replace('-q', '-q -k "not mul"'));
    await file('pytest.ini', '[pytest]\naddopts = -k "not mul"\n');
    await file('node_modules/vitest/cli.js', '#!/usr/bin/env node\nprocess.exit(0);\n');
    const commands = ['npx vitest run'];
    const base = await readBaseFiles(runner, dir, start.commit, runnerConfigFiles(commands));
    expect(await findRunnerConfigChanges(base, dir, start, true, commands)).toEqual([
      'changed vitest.config.js, which configures the test runner',
      'added pytest.ini, which configures the test runner',
      'changed the test keys of package.json, which configure the test runner',
      'changed the [tool.pytest] of pyproject.toml, which configure the test runner',
      'changed node_modules/.bin/vitest, which a check runs',
    ]);
  });

  it('lets other changes to shared files and set-up of a project without tests through', async () => {
    const { dir, start } = await project();
    await writeFile(join(dir, 'pyproject.toml'), PYPROJECT.replace('"x"', '"y"'));
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'q', jest: { testTimeout: 5000 } }),
    );
    await writeFile(join(dir, 'jest.config.js'), 'module.exports = {};\n');
    const base = await readBaseFiles(runner, dir, start.commit, runnerConfigFiles(['npm test']));
    expect(await findRunnerConfigChanges(base, dir, start, false, ['npm test'])).toEqual([]);
  });
});

describe('executablesRunBy', () => {
  it('names node_modules/.bin for bare words and npx, paths as written', () => {
    expect(
      executablesRunBy(['npx vitest run && CI=1 ./bin/check.sh', 'pytest -q | tee x']),
    ).toEqual([
      'node_modules/.bin/vitest',
      'bin/check.sh',
      'node_modules/.bin/pytest',
      'node_modules/.bin/tee',
    ]);
  });

  it('names the script an interpreter runs, but not a test file (attack 18)', () => {
    expect(
      executablesRunBy(['bash scripts/check.sh', 'python3 ./tools/t.py -q', 'node --test x.js']),
    ).toEqual([
      'node_modules/.bin/bash',
      'scripts/check.sh',
      'node_modules/.bin/python3',
      'tools/t.py',
      'node_modules/.bin/node',
    ]);
    expect(executablesRunBy(['node test/add.test.js', 'python3 -m pytest'])).toEqual([
      'node_modules/.bin/node',
      'node_modules/.bin/python3',
    ]);
  });

  it('names what node_modules/.bin could shadow when a check runs a package script (attack 04)', () => {
    const paths = executablesRunBy(['npm test', 'node --test']);
    for (const name of ['node', 'npm', 'npx', 'sh', 'bash', 'env', 'python', 'python3']) {
      expect(paths).toContain(`node_modules/.bin/${name}`);
    }
    expect(executablesRunBy(['pytest -q'])).not.toContain('node_modules/.bin/node');
  });
});

describe('executables a check starts that appear after the base', () => {
  it('reports a node_modules/.bin/node added where the base had tests, not in a new project', async () => {
    const { dir, start } = await project();
    const paths = executablesRunBy(['npm test']);
    const before = { ...start, executables: await hashExecutables(dir, paths) };
    await mkdir(join(dir, 'node_modules/.bin'), { recursive: true });
    await writeFile(join(dir, 'node_modules/.bin/node'), '#!/bin/sh\nexit 0\n');
    const base = await readBaseFiles(runner, dir, start.commit, []);
    expect(await findRunnerConfigChanges(base, dir, before, true, ['npm test'])).toEqual([
      'added node_modules/.bin/node, which a check runs',
    ]);
    expect(await findRunnerConfigChanges(base, dir, before, false, ['npm test'])).toEqual([]);
  });
});
