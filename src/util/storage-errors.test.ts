import { describe, expect, it } from 'vitest';
import { RalphError } from './errors.js';
import { storageError, withStorageErrors } from './storage-errors.js';

const errno = (code: string, path?: string) =>
  Object.assign(new Error(`${code}: failed`), { code, ...(path === undefined ? {} : { path }) });

describe('storageError', () => {
  it('names the path, the cause and the fix of a full disk, a read-only mount, no permission', () => {
    const full = storageError(errno('ENOSPC'), '/loop/status.json');
    expect(full).toMatchObject({ code: 'NO_SPACE', exitCode: 1 });
    expect(full?.message).toBe('cannot write /loop/status.json: the disk is full (ENOSPC)');
    expect(full?.hint).toMatch(/free some space/);
    expect(storageError(errno('EROFS', '/loop/.ralph.lock'))?.message).toBe(
      'cannot write /loop/.ralph.lock: the filesystem is read-only (EROFS)',
    );
    expect(storageError(errno('EACCES', '/loop'))?.code).toBe('NO_PERMISSION');
  });

  it('leaves other errors alone', () => {
    expect(storageError(errno('ENOENT', '/x'))).toBeUndefined();
    expect(storageError(new RalphError('IO', 'x'))).toBeUndefined();
    expect(storageError('text')).toBeUndefined();
  });

  it('wraps a failing write', async () => {
    await expect(
      withStorageErrors('/loop/events.jsonl', () => Promise.reject(errno('ENOSPC'))),
    ).rejects.toMatchObject({ code: 'NO_SPACE', location: { file: '/loop/events.jsonl' } });
  });
});
