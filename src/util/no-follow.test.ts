import { execFileSync } from 'node:child_process';
import {
  link,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rename,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendFileNoFollowSync,
  isUnsafeFileError,
  openForAppend,
  openForRewrite,
  folderPin,
  ownFolder,
  readFileNoFollow,
} from './no-follow.js';

const VICTIM_TEXT = 'export PATH=/usr/bin\n';

/** A loop folder and, outside it, a victim file such as ~/.bashrc. */
async function setup(): Promise<{ dir: string; victim: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-nofollow-'));
  const outside = await mkdtemp(join(tmpdir(), 'ralph-victim-'));
  const victim = join(outside, '.bashrc');
  await writeFile(victim, VICTIM_TEXT);
  return { dir, victim };
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isUnsafeFileError(error)) throw new Error(`expected UNSAFE_FILE, got ${String(error)}`);
  return error;
}

describe('openForAppend', () => {
  it('creates and appends to a regular file', async () => {
    const { dir } = await setup();
    const file = join(dir, 'progress.txt');
    for (const text of ['one\n', 'two\n']) {
      const handle = await openForAppend(file);
      await handle.write(text);
      await handle.close();
    }
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses a symbolic link to a file outside, naming the file and what to do', async () => {
    const { dir, victim } = await setup();
    const file = join(dir, 'progress.txt');
    await symlink(victim, file);
    const error = await refusal(openForAppend(file));
    expect(error.message).toBe(
      `ralph refused to use ${file}: it is a symbolic link, not a regular file of its own`,
    );
    expect((error as { hint?: string }).hint).toContain(`rm ${file}`);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('refuses a dangling symbolic link without creating its target', async () => {
    const { dir, victim } = await setup();
    const target = join(victim, '..', 'new-file');
    await symlink(target, join(dir, 'events.jsonl'));
    await refusal(openForAppend(join(dir, 'events.jsonl')));
    await expect(readFile(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a hard link to a victim', async () => {
    const { dir, victim } = await setup();
    const file = join(dir, 'progress.txt');
    await link(victim, file);
    const error = await refusal(openForAppend(file));
    expect(error.message).toContain('a hard link (2 names for one file)');
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });

  it('refuses a FIFO at once instead of hanging', async () => {
    const { dir } = await setup();
    const fifo = join(dir, 'progress.txt');
    execFileSync('mkfifo', [fifo]);
    const error = await refusal(openForAppend(fifo));
    expect(error.message).toContain('a FIFO');
  });

  it('refuses a folder', async () => {
    const { dir } = await setup();
    const error = await refusal(openForAppend(dir));
    expect(error.message).toContain('it is a folder');
  });
});

describe('openForRewrite', () => {
  it('empties and rewrites a regular file', async () => {
    const { dir } = await setup();
    const file = join(dir, 'log.jsonl');
    await writeFile(file, 'old old old\n');
    const handle = await openForRewrite(file);
    await handle.write('new\n');
    await handle.close();
    expect(await readFile(file, 'utf8')).toBe('new\n');
  });

  it('neither truncates nor writes a hard-linked or symlinked victim', async () => {
    const { dir, victim } = await setup();
    await link(victim, join(dir, 'hard.jsonl'));
    await symlink(victim, join(dir, 'soft.jsonl'));
    await refusal(openForRewrite(join(dir, 'hard.jsonl')));
    await refusal(openForRewrite(join(dir, 'soft.jsonl')));
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });
});

describe('readFileNoFollow', () => {
  it('reads a regular file and refuses a link', async () => {
    const { dir, victim } = await setup();
    await writeFile(join(dir, 'prd.json'), '{}');
    expect(await readFileNoFollow(join(dir, 'prd.json'))).toBe('{}');
    await symlink(victim, join(dir, 'linked.json'));
    await refusal(readFileNoFollow(join(dir, 'linked.json')));
  });

  it('passes ENOENT through', async () => {
    const { dir } = await setup();
    await expect(readFileNoFollow(join(dir, 'missing'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('appendFileNoFollowSync', () => {
  it('appends to a regular file and refuses a link to a victim', async () => {
    const { dir, victim } = await setup();
    const file = join(dir, 'audit.jsonl');
    appendFileNoFollowSync(file, 'a\n');
    appendFileNoFollowSync(file, 'b\n');
    expect(await readFile(file, 'utf8')).toBe('a\nb\n');
    const linked = join(dir, 'linked.jsonl');
    await symlink(victim, linked);
    let thrown: unknown;
    try {
      appendFileNoFollowSync(linked, 'evil\n');
    } catch (error) {
      thrown = error;
    }
    expect(isUnsafeFileError(thrown)).toBe(true);
    expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT);
  });
});

describe('ownFolder', () => {
  it('creates a missing folder and accepts an existing one', async () => {
    const { dir } = await setup();
    await ownFolder(join(dir, 'logs'));
    await ownFolder(join(dir, 'logs'));
    expect(await readdir(dir)).toEqual(['logs']);
  });

  it('refuses a folder the agent replaced with a link to another folder', async () => {
    const { dir, victim } = await setup();
    const logs = join(dir, 'logs');
    await symlink(join(victim, '..'), logs);
    const error = await refusal(ownFolder(logs));
    expect(error.message).toBe(
      `ralph refused to use ${logs}: it is a symbolic link, not a folder of its own`,
    );
    expect((error as { hint?: string }).hint).toContain('ralph creates a fresh folder');
  });

  it('refuses a file where the folder should be', async () => {
    const { dir } = await setup();
    await mkdir(join(dir, 'a'));
    await writeFile(join(dir, 'a', 'logs'), '');
    await expect(ownFolder(join(dir, 'a', 'logs'))).rejects.toThrow();
  });
});

describe('folderPin', () => {
  it('passes while the folder stays, also when reached through a link of its own', async () => {
    const { dir } = await setup();
    const linked = join(await mkdtemp(join(tmpdir(), 'ralph-link-')), 'loop');
    await symlink(dir, linked);
    const check = folderPin(linked);
    await check();
    await writeFile(join(dir, 'x'), 'new file inside');
    await check();
  });

  it('refuses once the folder was moved away and a link to another folder put in its place', async () => {
    const { dir, victim } = await setup();
    const check = folderPin(dir);
    await check();
    await rename(dir, `${dir}-moved`);
    await symlink(join(victim, '..'), dir);
    const error = await refusal(check());
    expect(error.message).toBe(
      `ralph refused to use ${dir}: it is another folder (moved away, or swapped for a link), not the folder ralph started with`,
    );
  });
});
