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
});
