import { describe, expect, it } from 'vitest';
import { detectCompletion } from './completion.js';

describe('detectCompletion', () => {
  it.each([
    ['Done. <promise>STORY_COMPLETE</promise>', 'STORY_COMPLETE'],
    ['All stories pass.\n<promise>COMPLETE</promise>\n', 'COMPLETE'],
    ['<promise> COMPLETE </promise>', 'COMPLETE'],
    ['✅ tests pass ✅ <promise>STORY_COMPLETE</promise>', 'STORY_COMPLETE'],
    // The last promise wins: a summary may mention the other one first.
    [
      'I will not print <promise>COMPLETE</promise> yet. <promise>STORY_COMPLETE</promise>',
      'STORY_COMPLETE',
    ],
  ])('%j → %s', (text, expected) => {
    expect(detectCompletion(text)).toBe(expected);
  });

  it.each([
    [undefined],
    [''],
    ['COMPLETE'],
    ['the story is complete'],
    ['<promise>complete</promise>'],
    ['<promise>DONE</promise>'],
    ['<Promise>COMPLETE</Promise>'],
    ['<promise>COMPLETE'],
  ])('%j is no signal', (text) => {
    expect(detectCompletion(text)).toBeUndefined();
  });

  it('custom patterns are literal substrings of the final text', () => {
    expect(detectCompletion('ALL DONE (*)', ['DONE (*)'])).toBe('custom');
    expect(detectCompletion('ALL DONE', ['DONE.*'])).toBeUndefined();
    expect(detectCompletion('anything', [''])).toBeUndefined();
  });

  describe('with completion.promise set', () => {
    it('a tag promise replaces COMPLETE, spaces inside the tag allowed', () => {
      const promise = '<promise>SHIPPED</promise>';
      expect(detectCompletion('Done. <promise> SHIPPED </promise>', [], promise)).toBe('COMPLETE');
      expect(detectCompletion('Done. <promise>COMPLETE</promise>', [], promise)).toBeUndefined();
      expect(detectCompletion('<promise>STORY_COMPLETE</promise>', [], promise)).toBe(
        'STORY_COMPLETE',
      );
    });

    it('any other text counts literally, and the last promise still wins', () => {
      const promise = 'ALL STORIES PASS ✅';
      expect(detectCompletion('so: ALL STORIES PASS ✅', [], promise)).toBe('COMPLETE');
      expect(
        detectCompletion(
          'not yet ALL STORIES PASS ✅, only <promise>STORY_COMPLETE</promise>',
          [],
          promise,
        ),
      ).toBe('STORY_COMPLETE');
      expect(
        detectCompletion('<promise>STORY_COMPLETE</promise> and ALL STORIES PASS ✅', [], promise),
      ).toBe('COMPLETE');
      expect(detectCompletion('ALL STORIES PASS', [], promise)).toBeUndefined();
    });
  });
});
