import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { resolvePolicy } from '../policy.js';
import {
  findTreeSecret,
  globTest,
  WALK_DEPTH,
  WALK_ENTRIES,
  type TreeFilter,
} from './tree-walk.js';

/** The bounded walk behind `grep -r`, `tar c`, `zip -r` and `find -exec cat {}`. */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-guard-walk-')));
const project = join(root, 'project');
const home = join(root, 'home');
const file = (path: string, text = 'x') => {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
};
file('src/a.ts');
file('src/deep/b.ts');
file('config/.env.local');
file('keys/server.pem');
file('node_modules/pkg/.env');
file('.git/credentials');
mkdirSync(home, { recursive: true });
mkdirSync(join(home, '.ssh'), { recursive: true });
writeFileSync(join(home, '.ssh', 'id_rsa'), 'k');
symlinkSync(join(home, '.ssh'), join(project, 'src', 'ssh-link'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const policy = resolvePolicy({ projectRoot: project, homeDir: home, unattended: true });
const all: TreeFilter = { hidden: true, follow: false };
const at = (path: string) => join(project, path);

describe('findTreeSecret', () => {
  it('finds nothing in a folder without secrets, skipping node_modules and .git', () => {
    expect(findTreeSecret(at('src/deep'), policy, all)).toBeUndefined();
    expect(findTreeSecret(at('node_modules'), policy, all)).toMatchObject({ kind: 'secret' });
  });

  it('finds a secret file below the root', () => {
    expect(findTreeSecret(at('config'), policy, all)).toMatchObject({
      kind: 'secret',
      path: at('config/.env.local'),
      rule: '.env.*',
    });
  });

  it('skips hidden entries when the command does', () => {
    expect(findTreeSecret(at('config'), policy, { hidden: false, follow: false })).toBeUndefined();
  });

  it('leaves out files and folders the filter excludes', () => {
    const skipsFile = globTest('*.pem');
    const filter: TreeFilter = {
      ...all,
      skipsFile: (name) => skipsFile(name) || name.startsWith('.env'),
      skipsDir: (name) => name === 'src',
    };
    expect(findTreeSecret(project, policy, filter)).toBeUndefined();
  });

  it('reports a link to a secret folder, followed or not', () => {
    const link = { ...all, skipsFile: (name: string) => name !== 'ssh-link' };
    expect(findTreeSecret(at('src'), policy, link)).toMatchObject({ kind: 'secret', rule: '.ssh' });
    expect(findTreeSecret(at('src'), policy, { ...all, follow: true })).toMatchObject({
      kind: 'secret',
    });
  });

  it('stops at the command maximum depth', () => {
    expect(findTreeSecret(project, policy, { ...all, maxDepth: 1 })).toBeUndefined();
    expect(findTreeSecret(project, policy, { ...all, maxDepth: 2 })).toMatchObject({
      kind: 'secret',
    });
  });

  it('treats a tree deeper than it walks as one that may hold a secret', () => {
    const deep = join(root, 'deep', ...Array.from({ length: WALK_DEPTH + 1 }, (_, i) => `d${i}`));
    mkdirSync(deep, { recursive: true });
    expect(findTreeSecret(join(root, 'deep'), policy, all)).toMatchObject({ kind: 'unfinished' });
  });

  it('treats a tree bigger than it walks as one that may hold a secret', () => {
    // 5001 files: on tmpfs where there is one (Linux), since creating them on a busy disk took
    // 11-29 s; hidden names, so a walk without dotfiles passes over each one at once.
    const wide = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : root, 'ralph-wide-'));
    onTestFinished(() => {
      rmSync(wide, { recursive: true, force: true });
    });
    for (let i = 0; i <= WALK_ENTRIES; i++) writeFileSync(join(wide, `.f${i}`), '');
    const visible: TreeFilter = { hidden: false, follow: false };
    expect(findTreeSecret(wide, policy, visible)).toMatchObject({ kind: 'unfinished', path: wide });
    rmSync(join(wide, `.f${WALK_ENTRIES}`));
    expect(findTreeSecret(wide, policy, visible)).toBeUndefined();
  });

  it('says nothing about a plain file or a missing folder', () => {
    expect(findTreeSecret(at('src/a.ts'), policy, all)).toBeUndefined();
    expect(findTreeSecret(at('missing'), policy, all)).toBeUndefined();
  });
});

describe('globTest', () => {
  it('matches one name, or across folders when asked', () => {
    expect(globTest('*.ts')('a.ts')).toBe(true);
    expect(globTest('*.ts')('.env')).toBe(false);
    expect(globTest('*')('.env')).toBe(true);
    expect(globTest('src/*', true)('src/deep/b.ts')).toBe(true);
    expect(globTest('src/*')('src/deep/b.ts')).toBe(false);
  });
});
