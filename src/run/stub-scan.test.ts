import { describe, expect, it } from 'vitest';
import { findStubs, parseUnifiedDiff, wholeFile } from './stub-scan.js';

const DIFF = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -3,0 +4,2 @@ export function x() {',
  '+// TODO: handle the empty list',
  '+export function y(): number { return 1; }',
  '@@ -10 +12 @@',
  '-old',
  '+new line',
  'diff --git a/gone.ts b/gone.ts',
  'deleted file mode 100644',
  '--- a/gone.ts',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-// TODO gone',
  'diff --git "a/odd\\tname.py" "b/odd\\tname.py"',
  'new file mode 100644',
  '--- /dev/null',
  '+++ "b/odd\\tname.py"',
  '@@ -0,0 +1 @@',
  '+raise NotImplementedError',
  '',
].join('\n');

describe('parseUnifiedDiff', () => {
  it('keeps the added lines of each file with their new line numbers', () => {
    expect(parseUnifiedDiff(DIFF)).toEqual([
      {
        file: 'src/a.ts',
        added: [
          { line: 4, text: '// TODO: handle the empty list' },
          { line: 5, text: 'export function y(): number { return 1; }' },
          { line: 12, text: 'new line' },
        ],
      },
      { file: 'odd\tname.py', added: [{ line: 1, text: 'raise NotImplementedError' }] },
    ]);
  });
});

function stubsIn(source: string) {
  return findStubs(wholeFile('f', source)).map((each) => `${each.line}:${each.kind}`);
}

describe('findStubs', () => {
  it('finds TODO markers and "not implemented" in any language', () => {
    expect(
      stubsIn(
        [
          '// TODO: real parser',
          '# FIXME later',
          "throw new Error('Not implemented');",
          'fn f() -> u8 { todo!() }',
          'unimplemented!("soon")',
          'raise NotImplementedError()',
          'const todoList = [];',
        ].join('\n'),
      ),
    ).toEqual([
      '1:todo',
      '2:todo',
      '3:not-implemented',
      '4:not-implemented',
      '5:not-implemented',
      '6:not-implemented',
    ]);
  });

  it('finds empty function bodies on one line or two, and Python pass bodies', () => {
    expect(
      stubsIn(
        [
          'export function save(user: User): void {}',
          'func Handle(w http.ResponseWriter) {',
          '}',
          'fn run() -> Result<(), E> {}',
          'def load(path):',
          '    pass',
          'def quick(): ...',
          'const handler = async (req) => {};',
        ].join('\n'),
      ),
    ).toEqual([
      '1:empty-body',
      '2:empty-body',
      '4:empty-body',
      '5:empty-body',
      '7:empty-body',
      '8:empty-body',
    ]);
  });

  it('leaves real bodies, control flow and no-op callbacks alone', () => {
    expect(
      stubsIn(
        [
          'export function save(user: User): void {',
          '  db.put(user);',
          '}',
          'if (ready) {}',
          '} catch (error) {}',
          'emitter.on("x", () => {});',
          'const options = { onEvent: () => {} };',
          'def load(path):',
          '    return open(path).read()',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('does not join a head and a closing brace that are not adjacent in the new file', () => {
    const found = findStubs({
      file: 'f.ts',
      added: [
        { line: 3, text: 'function f() {' },
        { line: 9, text: '}' },
      ],
    });
    expect(found).toEqual([]);
  });
});
