import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gitOnlyRunner, ISOLATED_GIT_ENV } from '../../test/git-check-runner.js';
import { afterAll, describe, expect, it } from 'vitest';
import { findCheckSetupChanges } from './check-setup.js';
import { modulesRunBy } from './python-setup.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const env = ISOLATED_GIT_ENV;
const runner = gitOnlyRunner();

async function put(dir: string, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
}

async function pythonProject(): Promise<{ dir: string; commit: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-python-setup-'));
  dirs.push(dir);
  await put(dir, {
    'tests/test_add.py': 'from add import add\ndef test_add():\n    assert add(2, 3) == 5\n',
    'tests/conftest.py': 'import pytest\n@pytest.fixture\ndef two():\n    return 2\n',
    '.gitignore': '.venv/\n',
  });
  execFileSync('git', ['init', '-q'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'one'], {
    cwd: dir,
    env,
  });
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env }).toString().trim();
  return { dir, commit };
}

const HOOK =
  'import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    yield\n';

describe('Python startup files as test-runner configuration (attacks 07b, 07d, 08)', () => {
  it('reports pytest.toml, .pytest.toml, conftest.py at any depth, sitecustomize and .pth', async () => {
    const { dir, commit } = await pythonProject();
    await put(dir, {
      'pytest.toml': '[pytest]\naddopts = ["-p", "report_fmt"]\n',
      '.pytest.toml': '[pytest]\n',
      'tests/conftest.py': HOOK,
      'tests/deep/er/conftest.py': HOOK,
      'sitecustomize.py': 'import builtins\n',
      'src/evil.pth': 'import os\n',
    });
    const start = { commit, untracked: new Set<string>() };
    const problems = await findCheckSetupChanges(runner, dir, start, ['python3 -m pytest']);
    expect(problems.sort()).toEqual([
      'added .pytest.toml, which configures the test runner',
      'added pytest.toml, which configures the test runner',
      'added sitecustomize.py, which Python runs before the tests',
      'added src/evil.pth, which Python runs before the tests',
      'added tests/deep/er/conftest.py, which Python runs before the tests',
      'changed tests/conftest.py, which Python runs before the tests',
    ]);
  });

  it('lets a new fixtures-only conftest.py and an ignored virtualenv through', async () => {
    const { dir, commit } = await pythonProject();
    await put(dir, {
      'tests/api/conftest.py': 'import pytest\n@pytest.fixture\ndef client():\n    return 1\n',
      'tests/api/test_api.py': 'def test_api(client):\n    assert client == 1\n',
      '.venv/lib/python3.12/site-packages/distutils-precedence.pth': 'import os\n',
    });
    const start = { commit, untracked: new Set<string>() };
    expect(await findCheckSetupChanges(runner, dir, start, ['python3 -m pytest'])).toEqual([]);
  });

  it('reports a module or package in the working folder that `python -m NAME` would run', async () => {
    const { dir, commit } = await pythonProject();
    await put(dir, { 'pytest.py': 'print("2 passed")\n', 'unittest/__init__.py': '' });
    const start = { commit, untracked: new Set<string>() };
    const commands = ['python3 -m pytest -q', 'python -B -m unittest discover'];
    expect(await findCheckSetupChanges(runner, dir, start, commands)).toEqual([
      'added pytest.py, which `python -m pytest` would run instead of the installed pytest',
      'added unittest, which `python -m unittest` would run instead of the installed unittest',
    ]);
  });

  it('names the modules python -m runs', () => {
    expect(
      modulesRunBy([
        'python3 -m pytest tests',
        'python -X dev -m unittest',
        'python3.12 -mpkg.cli',
      ]),
    ).toEqual(['pytest', 'unittest', 'pkg']);
    expect(modulesRunBy(['pytest -m slow', 'npm test'])).toEqual([]);
  });
});
