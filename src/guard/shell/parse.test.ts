import { describe, expect, it } from 'vitest';
import { loadShellParser, parseShell, ShellParserNotLoaded, type SyntaxNode } from './parse.js';

// Vitest runs each test file in its own module graph, so this file starts with no parser loaded.

describe('parseShell', () => {
  it('refuses to parse before loadShellParser(), with a typed error (the guard then denies)', () => {
    expect(() => {
      parseShell('ls', () => undefined);
    }).toThrow(ShellParserNotLoaded);
  });

  it('serves concurrent loads; parsing is synchronous after them', async () => {
    await Promise.all([loadShellParser(), loadShellParser(), loadShellParser()]);
    expect(parseShell('ls', (parsed) => parsed.root.type)).toBe('program');
  });

  it('gives the tree-sitter node API the guard walks: types, fields, text, named children', async () => {
    await loadShellParser();
    const seen = parseShell('cd src && FOO=1 ls -la "$HOME"', (parsed) => {
      const list = parsed.root.namedChildren[0]!;
      const [cd, ls] = list.namedChildren as [SyntaxNode, SyntaxNode];
      return {
        hasError: parsed.hasError,
        list: list.type,
        operator: list.children.find((child) => !child.isNamed)?.text,
        cd: cd.childForFieldName('name')?.text,
        ls: ls.childForFieldName('name')?.text,
        args: ls.namedChildren.map((child) => `${child.type}:${child.text}`),
        parent: ls.parent?.type,
      };
    });
    expect(seen).toEqual({
      hasError: false,
      list: 'list',
      operator: '&&',
      cd: 'cd',
      ls: 'ls',
      args: ['variable_assignment:FOO=1', 'command_name:ls', 'word:-la', 'string:"$HOME"'],
      parent: 'list',
    });
    const target = parseShell('echo hi > out.txt', (parsed) => {
      const statement = parsed.root.namedChildren[0]!;
      const redirect = statement.childForFieldName('redirect');
      return [statement.type, redirect?.type, redirect?.childForFieldName('destination')?.text];
    });
    expect(target).toEqual(['redirected_statement', 'file_redirect', 'out.txt']);
  });

  it('reports a tree with ERROR or MISSING nodes', async () => {
    await loadShellParser();
    expect(parseShell('echo "unterminated', (parsed) => parsed.hasError)).toBe(true);
    expect(parseShell('if true; then ls', (parsed) => parsed.hasError)).toBe(true);
    expect(parseShell('echo fine', (parsed) => parsed.hasError)).toBe(false);
  });

  it('lets an error of the callback through (the tree is freed all the same)', async () => {
    await loadShellParser();
    expect(() =>
      parseShell('ls', () => {
        throw new Error('judge failed');
      }),
    ).toThrow('judge failed');
    expect(parseShell('pwd', (parsed) => parsed.root.text)).toBe('pwd');
  });
});
