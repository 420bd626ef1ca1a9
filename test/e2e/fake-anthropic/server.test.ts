import { afterEach, describe, expect, it } from 'vitest';
import {
  apiError,
  bash,
  failFirst,
  reply,
  scriptedSteps,
  sessionSequence,
  write,
} from './script.js';
import { startFakeAnthropic, type FakeAnthropic } from './server.js';
import type { Script } from './types.js';

let fake: FakeAnthropic | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(script: Script) {
  fake = await startFakeAnthropic(script);
  return fake;
}

type Msg = Record<string, unknown>;

/** A request body shaped like the CLI's (facts §3), including a role:"system" item. */
function body(messages: Msg[], extra: Msg = {}): Msg {
  return {
    model: 'claude-sonnet-5-5',
    system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=test' }],
    tools: [{ name: 'Bash' }, { name: 'Write' }],
    metadata: { user_id: JSON.stringify({ device_id: 'd', session_id: 'session-a' }) },
    stream: true,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<system-reminder>ctx</system-reminder>' },
          { type: 'text', text: 'do STORY-007' },
        ],
      },
      { role: 'system', content: '# Environment' },
      ...messages,
    ],
    ...extra,
  };
}

const afterOneTool: Msg[] = [
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_fake_1', name: 'Bash', input: { command: 'ls' } }],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_fake_1',
        content: [{ type: 'text', text: 'a.txt' }],
      },
    ],
  },
];

function post(url: string, payload: Msg, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(payload),
  });
}

/** Rebuilds the message from SSE the way a client does. */
function fromSse(textBody: string) {
  const events = textBody
    .split('\n\n')
    .filter(Boolean)
    .map((chunk) => JSON.parse(chunk.split('\n')[1]!.slice('data: '.length)) as Msg);
  const blocks: Msg[] = [];
  const partial: string[] = [];
  let stopReason: unknown;
  for (const e of events) {
    if (e.type === 'content_block_start') blocks.push({ ...(e.content_block as Msg) });
    if (e.type === 'content_block_delta') {
      const delta = e.delta as { type: string; text?: string; partial_json?: string };
      const block = blocks[e.index as number]!;
      if (delta.type === 'text_delta') block.text = `${block.text as string}${delta.text!}`;
      else partial[e.index as number] = (partial[e.index as number] ?? '') + delta.partial_json!;
    }
    if (e.type === 'message_delta') stopReason = (e.delta as Msg).stop_reason;
  }
  partial.forEach((json, i) => (blocks[i]!.input = JSON.parse(json) as unknown));
  return { types: events.map((e) => e.type), blocks, stopReason };
}

describe('fake Messages API', () => {
  it('answers anything but POST /v1/messages with a quick 404', async () => {
    const { url, requests } = await start(() => 'unused');
    for (const path of ['/', '/api/hello']) {
      expect((await fetch(`${url}${path}`, { method: 'HEAD' })).status).toBe(404);
    }
    expect((await fetch(`${url}/v1/models`)).status).toBe(404);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'HEAD /',
      'HEAD /api/hello',
      'GET /v1/models',
    ]);
  });

  it('streams the standard SSE events, with tool ids derived from the conversation', async () => {
    const { url } = await start(scriptedSteps(['first', reply('Writing.', write('/tmp/a', 'x'))]));
    const res = await post(url, body(afterOneTool));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const { types, blocks, stopReason } = fromSse(await res.text());
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    expect(blocks).toEqual([
      { type: 'text', text: 'Writing.' },
      {
        type: 'tool_use',
        id: 'toolu_fake_2',
        name: 'Write',
        input: { file_path: '/tmp/a', content: 'x' },
      },
    ]);
    expect(stopReason).toBe('tool_use');
  });

  it('answers the same conversation without `stream` as one JSON message with the same ids', async () => {
    const { url } = await start(scriptedSteps(['first', reply(bash('echo hi > b.txt'))]));
    const res = await post(url, body(afterOneTool, { stream: false }));
    const message = (await res.json()) as Msg;
    expect(message).toMatchObject({
      id: 'msg_fake_2',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-5-5',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_fake_2', name: 'Bash' }],
      usage: { input_tokens: 100, output_tokens: 20 },
    });
  });

  it('parses the conversation for scripts: prompt, session, tool results, system items', async () => {
    const { url, messageRequests } = await start(() => 'ok');
    await post(url, body(afterOneTool));
    await post(url, body([]), { 'x-claude-code-session-id': 'session-b' });
    const [first, second] = messageRequests();
    expect(first!.prompt()).toBe('do STORY-007');
    expect(first!.sessionId).toBe('session-a');
    expect(second!.sessionId).toBe('session-b');
    expect(first!.system).toContain('billing-header');
    expect(first!.tools).toEqual(['Bash', 'Write']);
    expect(first!.systemMessages()).toEqual(['# Environment']);
    expect(first!.assistantTurns()).toHaveLength(1);
    expect(first!.toolResults()).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_fake_1', content: 'a.txt', is_error: false },
    ]);
    expect(first!.containsText('a.txt')).toBe(true);
    expect(first!.lastUserText()).toBe('');
  });

  it('sends API errors with their headers, and turns a script error into a 400', async () => {
    const script = scriptedSteps([apiError(529, { retry: false, retryAfter: 1 })]);
    const { url, scriptErrors } = await start(script);
    const res = await post(url, body([]));
    expect(res.status).toBe(529);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'fake 529' },
    });
    const past = await post(url, body(afterOneTool));
    expect(past.status).toBe(400);
    expect(scriptErrors[0]?.message).toContain('1 steps');
  });

  it('gives each session its own script, and fails the first attempts per turn', async () => {
    const { url } = await start(
      sessionSequence([() => 'one', failFirst(1, apiError(429), () => 'two')]),
    );
    const text = async (res: Response) => fromSse(await res.text()).blocks[0]?.text;
    expect(await text(await post(url, body([])))).toBe('one');
    const b = { 'x-claude-code-session-id': 'session-b' };
    expect((await post(url, body([]), b)).status).toBe(429);
    expect(await text(await post(url, body([]), b))).toBe('two');
    expect(await text(await post(url, body([])))).toBe('one');
    const c = { 'x-claude-code-session-id': 'session-c' };
    expect((await post(url, body([]), c)).status).toBe(400);
  });

  it('passes raw bodies through and closes promptly while a reply hangs', async () => {
    const server = await start((r) =>
      r.prompt() === 'do STORY-007'
        ? { raw: 'Claude AI usage limit reached|1767225600' }
        : { hang: true },
    );
    expect(await (await post(server.url, body([]))).text()).toBe(
      'Claude AI usage limit reached|1767225600',
    );
    const hanging = post(server.url, { ...body([]), messages: [{ role: 'user', content: 'x' }] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    await server.close();
    fake = undefined;
    await expect(hanging).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(10_000); // not the hang's forever
  });
});
