import { describe, expect, it } from 'vitest';
import { isLoopback, tokenProblem, tokensMatch } from './auth.js';

describe('dashboard auth helpers', () => {
  it('compares tokens exactly, whatever their lengths', () => {
    expect(tokensMatch('abc', 'abc')).toBe(true);
    expect(tokensMatch('abc', 'abd')).toBe(false);
    expect(tokensMatch('abc', 'abcd')).toBe(false);
    expect(tokensMatch('', 'abc')).toBe(false);
  });

  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0.0.0.0', false],
    ['192.168.1.5', false],
    ['127.0.0.1.evil.example', false],
    ['localhost.evil.example', false],
    ['::', false],
  ])('%s is loopback: %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('tokenProblem', () => {
  it('refuses blank, short and spaced tokens, and takes a long random one', () => {
    expect(tokenProblem(' ')).toContain('whitespace');
    expect(tokenProblem('')).toContain('fewer than 16');
    expect(tokenProblem('abc')).toContain('fewer than 16');
    expect(tokenProblem('correct horse battery staple')).toContain('whitespace');
    expect(tokenProblem('Zm9vYmFyYmF6cXV4MTIz')).toBeUndefined();
  });
});
