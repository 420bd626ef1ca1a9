import { describe, expect, it } from 'vitest';
import {
  parseSessionLoopFile,
  quote,
  serialiseSessionLoopFile,
  type SessionLoopState,
} from './state-file.js';

const STATE: SessionLoopState = {
  loop_id: 'abc12345',
  session_id: '',
  active: true,
  iteration: 1,
  max_iterations: 20,
  completion_promise: 'DONE',
  started_at: '2026-01-21T12:00:00.000Z',
};

const NASTY_PROMPTS: Record<string, string> = {
  plain: 'Build a REST API for todos',
  quotes: `He said "don't" and 'won\\'t' \`backticks\` $HOME $(rm -rf /) ; | &&`,
  'dash lines': 'first\n---\nsecond\n---\n',
  'front matter look-alike': '---\nloop_id: "evil0000"\nsession_id: "x"\niteration: 999\n---\nbody',
  'yaml-looking lines': 'iteration: 7\nmax_iterations: 0\n- item\nkey: [1, 2]\n? complex\n',
  'leading blank lines': '\n\n\nstarts after blanks',
  'leading --- right away': '---',
  'trailing whitespace kept': 'text with trailing   \n\n\n',
  unicode: 'ünïcödé 日本語 🚀 emoji, RTL ‏שלום‏, combining é, NBSP\u00a0here',
  'line separators': 'a\u2028b\u2029c\u0085d',
  crlf: 'windows\r\nline\r\n---\r\nendings\r\n',
  'promise tags inside': 'Output <promise>DONE</promise> when done. Not before!',
  'yaml document end': 'text\n...\nmore\n',
  'tabs and control': 'tab\there\u0007bell',
  'only dashes': '---\n---\n---',
};

describe('state file round trip', () => {
  for (const [name, body] of Object.entries(NASTY_PROMPTS)) {
    it(`keeps a prompt with ${name} byte for byte`, () => {
      const text = serialiseSessionLoopFile({ state: STATE, body });
      const parsed = parseSessionLoopFile(text);
      expect(parsed).toEqual({ ok: true, file: { state: STATE, body } });
      // And once more: a re-serialised file is identical, so hook writes never drift.
      if (parsed.ok) expect(serialiseSessionLoopFile(parsed.file)).toBe(text);
    });
  }

  const PROMISES = [
    'DONE',
    'ALL "TESTS" PASS',
    "it's *done*",
    'a?b[c]',
    'back\\slash',
    'ünï 🚀',
    'x\u2028y',
    'a: b # c',
  ];
  for (const promise of PROMISES) {
    it(`keeps the promise ${JSON.stringify(promise)} literally`, () => {
      const state = { ...STATE, completion_promise: promise, session_id: 'sess "1"' };
      const parsed = parseSessionLoopFile(serialiseSessionLoopFile({ state, body: 'p' }));
      expect(parsed.ok && parsed.file.state).toEqual(state);
    });
  }

  it('writes a null promise and optional fields', () => {
    const state = {
      ...STATE,
      completion_promise: null,
      claimed_at: '2026-01-21T12:01:00.000Z',
      transcript_path: '/tmp/t.jsonl',
    };
    const text = serialiseSessionLoopFile({ state, body: 'p' });
    expect(text).toContain('completion_promise: null\n');
    expect(parseSessionLoopFile(text)).toEqual({ ok: true, file: { state, body: 'p' } });
  });

  it('escapes characters YAML would fold or strip', () => {
    expect(quote('a\u2028b\u0085c\ufeff')).toBe('"a\\u2028b\\u0085c\\ufeff"');
  });
});

describe('parseLoopFile', () => {
  it('reads the seed format: comments, a blank line before the prompt', () => {
    const text = [
      '---',
      'loop_id: "abc12345"',
      'session_id: ""              # Empty until claimed by a session',
      'active: true',
      'iteration: 1',
      'max_iterations: 20',
      'completion_promise: "DONE"',
      'started_at: "2026-01-21T12:00:00Z"',
      '---',
      '',
      'Your prompt text here',
    ].join('\n');
    const parsed = parseSessionLoopFile(text);
    expect(parsed.ok && parsed.file.body).toBe('Your prompt text here');
    expect(parsed.ok && parsed.file.state.started_at).toBe('2026-01-21T12:00:00Z');
  });

  it('takes a prompt right after the closing line, and an empty session as unclaimed', () => {
    const parsed = parseSessionLoopFile(
      '---\nloop_id: abc12345\nsession_id:\nactive: true\niteration: 2\nmax_iterations: 0\ncompletion_promise: null\nstarted_at: x\n---\nbody\n',
    );
    expect(parsed.ok && parsed.file).toEqual({
      state: {
        ...STATE,
        iteration: 2,
        max_iterations: 0,
        completion_promise: null,
        started_at: 'x',
      },
      body: 'body\n',
    });
  });

  const CORRUPT: [string, string, RegExp][] = [
    ['no front matter', 'just a prompt', /no front matter/],
    ['unclosed front matter', '---\nloop_id: abc12345\n', /not closed/],
    ['non-numeric iteration', frontMatter({ iteration: 'three' }), /iteration/],
    ['non-numeric max_iterations', frontMatter({ max_iterations: '"ten"' }), /max_iterations/],
    ['fractional iteration', frontMatter({ iteration: '1.5' }), /iteration/],
    ['iteration 0', frontMatter({ iteration: '0' }), /iteration/],
    ['negative max', frontMatter({ max_iterations: '-1' }), /max_iterations/],
    ['bad loop id', frontMatter({ loop_id: '"../../x"' }), /loop_id/],
    ['missing field', '---\nloop_id: abc12345\n---\nbody', /session_id|active/],
    ['duplicate keys', frontMatter({ extra: 'iteration: 2' }), /YAML/],
    ['not YAML', '---\n: : [\n---\nbody', /YAML/],
    ['a list, not a mapping', '---\n- a\n- b\n---\nbody', /root|expected/],
    ['empty prompt', frontMatter({}, '  \n'), /prompt .* empty/],
    ['BOM before the front matter', `\ufeff${frontMatter({})}`, /no front matter/],
  ];
  for (const [name, text, reason] of CORRUPT) {
    it(`rejects ${name}`, () => {
      const parsed = parseSessionLoopFile(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.reason).toMatch(reason);
    });
  }
});

function frontMatter(overrides: Record<string, string>, body = 'prompt'): string {
  const fields: Record<string, string> = {
    loop_id: '"abc12345"',
    session_id: '""',
    active: 'true',
    iteration: '1',
    max_iterations: '5',
    completion_promise: '"DONE"',
    started_at: '"2026-01-21T12:00:00Z"',
    ...overrides,
  };
  const lines = Object.entries(fields).map(([key, value]) =>
    key === 'extra' ? value : `${key}: ${value}`,
  );
  return `---\n${lines.join('\n')}\n---\n\n${body}`;
}
