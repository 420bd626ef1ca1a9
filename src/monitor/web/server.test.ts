import { request as httpRequest } from 'node:http';
import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_EVENTS } from '../../../test/fixtures/monitor/sample-events.js';
import { openSse, type SseMessage } from '../../../test/fixtures/monitor/sse-client.js';
import { startDashboard, type Dashboard } from './server.js';

let repo: string;
let dashboard: Dashboard;
let loopA: string;

const render = (line: string): string[] => (line === '' ? [] : [`rendered: ${line}`]);

/** A request exactly as given: no URL normalisation, any Host header. */
function get(
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port: dashboard.port,
        path,
        method,
        headers: { host: `127.0.0.1:${dashboard.port}`, ...headers },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, body, headers: response.headers });
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const loopEvents = (messages: SseMessage[]) => messages.filter((each) => each.event === 'loop');

beforeAll(async () => {
  repo = await mkdtemp(join(tmpdir(), 'ralph-web-'));
  loopA = join(repo, '.ralph', 'feature-a');
  await mkdir(join(loopA, 'logs'), { recursive: true });
  await writeFile(
    join(loopA, 'events.jsonl'),
    SAMPLE_EVENTS.map((each) => `${JSON.stringify(each)}\n`).join(''),
  );
  await writeFile(
    join(loopA, 'logs', 'iteration-1-attempt-1.jsonl'),
    '{"type":"x"}\n<b>bold</b>\n',
  );
  await writeFile(join(repo, 'secret.txt'), 'TOP SECRET\n');
  // A log that leads out of the loop directory must not be served.
  await symlink(join(repo, 'secret.txt'), join(loopA, 'logs', 'iteration-9-attempt-1.jsonl'));
  await mkdir(join(repo, '.ralph', 'feature-b'), { recursive: true });
  await writeFile(join(repo, '.ralph', 'feature-b', 'prd.json'), '{"userStories":[]}');
  dashboard = await startDashboard({
    repoRoot: repo,
    dirs: [loopA],
    host: '127.0.0.1',
    port: 0,
    token: undefined,
    renderLog: render,
    pollMs: 0,
  });
});
afterAll(async () => {
  await dashboard.close();
  await rm(repo, { recursive: true, force: true });
});

describe('web dashboard', () => {
  it('serves the page and lists every loop of the repo', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script type="module" src="/app.js">');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    const loops = JSON.parse((await get('/api/loops')).body) as {
      loops: { id: string }[];
      selected: string;
    };
    expect(loops.loops.map((loop) => loop.id)).toEqual(['.ralph/feature-a', '.ralph/feature-b']);
    expect(loops.selected).toBe('.ralph/feature-a');
  });

  it('streams every event with its line number as the id, then live ones as they are appended', async () => {
    const stream = openSse(`${dashboard.url}api/events?loop=.ralph%2Ffeature-a`);
    expect(await stream.status).toBe(200);
    await stream.waitFor((messages) => messages.some((each) => each.event === 'view'));
    expect(loopEvents(stream.messages).map((each) => each.id)).toEqual(
      SAMPLE_EVENTS.map((_, i) => String(i + 1)),
    );
    const started = Date.now();
    await appendFile(
      join(loopA, 'events.jsonl'),
      `${JSON.stringify({ type: 'warning', at: '2026-11-22T10:03:00.000Z', message: 'disk almost full \u001b[2J\u202e' })}\n`,
    );
    const id = String(SAMPLE_EVENTS.length + 1);
    await stream.waitFor((messages) => loopEvents(messages).some((each) => each.id === id));
    const latency = Date.now() - started;
    // pollMs 0: the folder watch delivered it. Reported, not asserted (shared, noisy machine).
    console.log(`SSE: event at the client ${latency} ms after it was appended`);
    expect(JSON.parse(loopEvents(stream.messages).at(-1)?.data ?? '{}')).toMatchObject({
      kind: 'warn',
      // Escape sequences and bidi overrides are shown, never passed on raw.
      text: '⚠ disk almost full \\u001b[2J\\u202e',
    });
    await stream.waitFor(
      (messages) => messages.filter((each) => each.event === 'view').length >= 2,
    );
    const view = JSON.parse(
      stream.messages.filter((each) => each.event === 'view').at(-1)?.data ?? '{}',
    ) as {
      view: { seq: number; iteration: number; costUsd: number };
      chart: string;
    };
    expect(view.view).toMatchObject({ seq: SAMPLE_EVENTS.length + 1, iteration: 3, costUsd: 0.75 });
    expect(view.chart).toContain('<svg');
    stream.close();
  });

  it('replays exactly the missed events to a client that reconnects with Last-Event-ID', async () => {
    const stream = openSse(`${dashboard.url}api/events?loop=.ralph%2Ffeature-a`, {
      'Last-Event-ID': '9',
    });
    await stream.waitFor((messages) => messages.some((each) => each.event === 'view'));
    const total = SAMPLE_EVENTS.length + 1;
    expect(loopEvents(stream.messages).map((each) => Number(each.id))).toEqual(
      Array.from({ length: total - 9 }, (_, i) => 10 + i),
    );
    stream.close();
  });

  it('shows an iteration log, rendered and escaped, or raw', async () => {
    const page = await get('/log?loop=.ralph%2Ffeature-a&iteration=1&attempt=1');
    expect(page.status).toBe(200);
    expect(page.body).toContain('rendered: {&quot;type&quot;:&quot;x&quot;}');
    expect(page.body).toContain('rendered: &lt;b&gt;bold&lt;/b&gt;');
    const raw = await get('/log?loop=.ralph%2Ffeature-a&iteration=1&attempt=1&raw=1');
    expect(raw.body).toBe('{"type":"x"}\n<b>bold</b>\n');
    expect(raw.headers['content-type']).toContain('text/plain');
  });

  it.each([
    '/log?loop=..%2F..%2F..%2Fetc&iteration=1',
    '/log?loop=%2Fetc&iteration=1',
    `/log?loop=${encodeURIComponent(repo)}&iteration=1`,
    '/log?loop=.ralph%2Ffeature-a%2F..%2F..&iteration=1',
    '/log?loop=.ralph%2Ffeature-a&iteration=..%2F..%2Fsecret.txt',
    '/log?loop=.ralph%2Ffeature-a&iteration=1%2F..%2F..%2F..%2Fsecret',
    '/log?loop=.ralph%2Ffeature-a&iteration=-1',
    '/log?loop=.ralph%2Ffeature-a&iteration=1e3',
    '/log?loop=.ralph%2Ffeature-a&iteration=1&attempt=..%2F1',
    '/log?loop=.ralph%2Ffeature-a&iteration=9&attempt=1', // a symlink out of the loop directory
    '/../../../etc/passwd',
    '/..%2F..%2F..%2Fetc%2Fpasswd',
    '/app.js/../../secret.txt',
    '/secret.txt',
    '/.ralph/feature-a/events.jsonl',
    '/api/view?loop=..%2Fsecret.txt',
  ])('serves nothing outside the loop directories: %s', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect(response.body).not.toContain('TOP SECRET');
    expect(response.body).not.toContain('root:');
  });

  it('refuses other methods and a Host that is not this machine (DNS rebinding)', async () => {
    expect((await get('/', {}, 'POST')).status).toBe(405);
    expect((await get('/', { host: 'evil.example:80' })).status).toBe(403);
    expect((await get('/api/loops', { host: 'localhost:1234' })).status).toBe(200);
  });
});

describe('web dashboard with a token', () => {
  let secured: Dashboard;
  const TOKEN = 's3cret-token-4-tests';
  const at = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; cookie: unknown }>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: secured.port,
          path,
          headers: { host: 'dashboard.example:80', ...headers },
        },
        (response) => {
          response.resume();
          resolve({ status: response.statusCode ?? 0, cookie: response.headers['set-cookie'] });
          response.destroy();
        },
      );
      request.on('error', reject);
      request.end();
    });
  beforeAll(async () => {
    secured = await startDashboard({
      repoRoot: repo,
      dirs: [],
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      renderLog: render,
      pollMs: 0,
    });
  });
  afterAll(async () => {
    await secured.close();
  });

  it.each([
    '/',
    '/app.js',
    '/app.css',
    '/api/loops',
    '/api/view?loop=.ralph%2Ffeature-a',
    '/api/events?loop=.ralph%2Ffeature-a',
    '/log?loop=.ralph%2Ffeature-a&iteration=1',
    '/nowhere',
  ])('checks the token on every request: %s', async (path) => {
    expect((await at(path)).status).toBe(401);
    expect((await at(path, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await at(path, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    expect((await at(path, { cookie: 'ralph_token=nope' })).status).toBe(401);
    const ok = await at(path, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(path === '/nowhere' ? 404 : 200);
  });

  it('accepts the token in the URL once and hands the page a cookie for the rest', async () => {
    const first = await at(`/?token=${TOKEN}`);
    expect(first.status).toBe(200);
    expect(String(first.cookie)).toContain(
      'ralph_token=s3cret-token-4-tests; HttpOnly; SameSite=Strict',
    );
    expect((await at('/api/loops', { cookie: `other=1; ralph_token=${TOKEN}` })).status).toBe(200);
  });

  it('will not serve beyond loopback without a token', async () => {
    await expect(
      startDashboard({
        repoRoot: repo,
        dirs: [],
        host: '0.0.0.0',
        port: 0,
        token: undefined,
        renderLog: render,
      }),
    ).rejects.toThrow('needs a token');
  });
});

describe('web dashboard: usage windows', () => {
  it('shows the usage windows and a Claude Code retry in the view it sends', async () => {
    const stream = openSse(`${dashboard.url}api/events?loop=.ralph%2Ffeature-a`);
    expect(await stream.status).toBe(200);
    await stream.waitFor((messages) => messages.some((each) => each.event === 'view'));
    const events = [
      {
        type: 'usage_windows',
        at: '2026-11-22T10:04:00.000Z',
        windows: { seven_day: { utilization: 0.42, resetsAt: '2099-01-01T00:00:00.000Z' } },
      },
      {
        type: 'agent_retry',
        at: '2026-11-22T10:04:01.000Z',
        iteration: 3,
        attempt: 1,
        retry: 1,
        maxRetries: 10,
        errorStatus: 429,
        error: 'rate_limit',
      },
    ];
    await appendFile(
      join(loopA, 'events.jsonl'),
      events.map((each) => `${JSON.stringify(each)}\n`).join(''),
    );
    const usageOf = (data: string | undefined) =>
      (JSON.parse(data ?? '{}') as { usage?: string[] }).usage ?? [];
    await stream.waitFor((messages) =>
      messages.some((each) => each.event === 'view' && usageOf(each.data).length === 2),
    );
    const usage = usageOf(
      stream.messages.find((each) => each.event === 'view' && usageOf(each.data).length === 2)
        ?.data,
    );
    expect(usage[0]).toBe('retrying (attempt 1 of 10, 429 rate_limit)');
    expect(usage[1]).toMatch(/^weekly 42 % \(resets in \d+h\d\dm\)$/);
    const page = await get('/');
    expect(page.body).toContain('id="stat-usage"');
    stream.close();
  });
});
