import { describe, expect, it } from 'vitest';
import { RalphError } from './errors.js';
import { UnsafeFileError } from './no-follow.js';

describe('RalphError identity', () => {
  it('recognises a RalphError made by another copy of the module (the TUI bundle, a second library)', () => {
    // What another copy's constructor leaves on its instances: the registered brand, not our class.
    const fromOtherCopy = Object.assign(new Error('locked'), {
      [Symbol.for('ralph-run.RalphError')]: true,
      code: 'LOCKED',
    });
    expect(fromOtherCopy instanceof RalphError).toBe(true);
    expect(new Error('plain') instanceof RalphError).toBe(false);
    const notObjects: unknown[] = ['text', null, undefined, 3];
    for (const value of notObjects) expect(value instanceof RalphError).toBe(false);
  });

  it('keeps ordinary instanceof for subclasses', () => {
    const unsafe = new UnsafeFileError('/x/progress.txt', 'a symbolic link');
    const plain = new RalphError('USAGE', 'bad flag');
    expect(unsafe instanceof RalphError).toBe(true);
    expect(unsafe instanceof UnsafeFileError).toBe(true);
    expect(plain instanceof UnsafeFileError).toBe(false);
  });
});
