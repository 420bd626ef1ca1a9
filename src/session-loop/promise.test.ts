import { describe, expect, it } from 'vitest';
import { containsPromise, normalisePromise, promiseProblem } from './promise.js';

describe('containsPromise', () => {
  const cases: [string, string | undefined, string, boolean][] = [
    ['exact', '<promise>DONE</promise>', 'DONE', true],
    ['inside other text', 'ok.\n<promise>DONE</promise>\nbye', 'DONE', true],
    ['trimmed and collapsed', '<promise>\n ALL  TESTS\n\tPASS </promise>', 'ALL TESTS PASS', true],
    ['the stored promise is normalised too', '<promise>A B</promise>', '  A   B ', true],
    ['one of several tags', '<promise>no</promise> <promise>DONE</promise>', 'DONE', true],
    ['no tags', 'DONE', 'DONE', false],
    ['prose', 'I am DONE with it', 'DONE', false],
    ['other tag', '<done>DONE</done>', 'DONE', false],
    ['tag case', '<PROMISE>DONE</PROMISE>', 'DONE', false],
    ['unclosed', '<promise>DONE', 'DONE', false],
    ['text case', '<promise>done</promise>', 'DONE', false],
    ['extra words', '<promise>DONE NOW</promise>', 'DONE', false],
    ['glob star is literal', '<promise>anything</promise>', '*', false],
    ['glob star matches itself', '<promise>*</promise>', '*', true],
    ['question mark is literal', '<promise>ab</promise>', 'a?', false],
    ['regex dot is literal', '<promise>abc</promise>', 'a.c', false],
    ['quotes are literal', `<promise>it's "done"</promise>`, `it's "done"`, true],
    ['no text at all', undefined, 'DONE', false],
    ['empty promise never matches', '<promise></promise>', '', false],
  ];
  for (const [name, text, promise, expected] of cases) {
    it(name, () => {
      expect(containsPromise(text, promise)).toBe(expected);
    });
  }
});

describe('promise rules', () => {
  it('normalises whitespace', () => {
    expect(normalisePromise('  a \n\t b  ')).toBe('a b');
  });

  it('refuses empty promises, tags inside and very long ones', () => {
    expect(promiseProblem('  ')).toMatch(/empty/);
    expect(promiseProblem('<promise>DONE</promise>')).toMatch(/tags/);
    expect(promiseProblem('x'.repeat(201))).toMatch(/200/);
    expect(promiseProblem('ALL "TESTS" PASS *')).toBeUndefined();
  });
});
