import { describe, expect, it } from 'vitest';
import type { SimpleCommand } from './analyze.js';
import { LIFECYCLE_INSTALL, scriptsRun } from './package-scripts.js';
import type { Arg } from './words.js';

/** `npm run $X` style: words starting with `$` stand for what is known only at run time. */
function command(line: string): SimpleCommand {
  const [name = '', ...words] = line.split(' ');
  const args: Arg[] = words.map((word) =>
    word.startsWith('$')
      ? { dynamic: true, text: word }
      : { dynamic: false, value: word, glob: false },
  );
  return {
    text: line,
    path: name,
    name,
    args,
    piped: false,
    stdin: undefined,
    cwd: '/p',
    depth: 0,
  };
}

const around = (name: string) => [`pre${name}`, name, `post${name}`];
const INSTALL = LIFECYCLE_INSTALL;

describe('scriptsRun', () => {
  it.each([
    { line: 'npm test', runs: around('test') },
    { line: 'npm t', runs: around('test') },
    { line: 'npm start', runs: around('start') },
    { line: 'npm restart', runs: [...around('stop'), ...around('restart'), ...around('start')] },
    { line: 'npm run build', runs: [...around('run'), ...around('build')] },
    {
      line: 'npm run-script build -- --watch',
      runs: [...around('run-script'), ...around('build')],
    },
    {
      line: 'npm --loglevel silent run build',
      runs: [...around('silent'), ...around('run'), ...around('build')],
    },
    { line: 'npm install', runs: INSTALL },
    { line: 'npm ci', runs: INSTALL },
    { line: 'npm install zod', runs: [] },
    { line: 'npm install -D vitest', runs: [] },
    { line: 'npm', runs: [] },
    { line: 'npm run', runs: around('run') },
    { line: 'npm exec tsc', runs: [] },
    { line: 'pnpm lint', runs: around('lint') },
    { line: 'pnpm', runs: INSTALL },
    { line: 'yarn', runs: INSTALL },
    { line: 'yarn --frozen-lockfile', runs: INSTALL },
    { line: 'yarn build', runs: around('build') },
    { line: 'bun run dev', runs: [...around('run'), ...around('dev')] },
    { line: 'make test', runs: [] },
  ])('$line', ({ line, runs }) => {
    const plan = scriptsRun(command(line));
    expect(plan.unknown).toBe(false);
    expect([...plan.names].sort()).toEqual([...new Set(runs)].sort());
  });

  it.each(['npm run $TASK', 'npm $CMD', 'pnpm $SCRIPT'])('%s: the script is not known', (line) => {
    expect(scriptsRun(command(line)).unknown).toBe(true);
  });

  it('npm install $PKG installs a package, whatever its name: no script of the project is unknown', () => {
    expect(scriptsRun(command('npm install $PKG')).unknown).toBe(false);
  });

  it('notes the folder of --prefix, -C, --dir or --cwd, and workspace options', () => {
    expect(scriptsRun(command('npm --prefix packages/a test')).dir).toBe('packages/a');
    expect(scriptsRun(command('pnpm --dir=packages/b lint')).dir).toBe('packages/b');
    expect(scriptsRun(command('yarn --cwd packages/c build')).dir).toBe('packages/c');
    expect(scriptsRun(command('npm test')).workspaces).toBe(false);
    for (const line of [
      'npm test -w a',
      'npm test --workspaces',
      'pnpm -r lint',
      'pnpm --filter a lint',
      'yarn workspace a build',
    ])
      expect(scriptsRun(command(line)).workspaces, line).toBe(true);
  });
});
