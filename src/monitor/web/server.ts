import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listLoops, type LoopListing } from '../loops.js';
import { safeIterationLog } from '../logs.js';
import { authorize, isLoopback, tokenProblem } from './auth.js';
import { APP_JS } from './client.js';
import { createLoopFeed, type LoopFeed } from './feed.js';
import { logPage } from './log-page.js';
import { PAGE_CSS } from './page.js';
import { renderPage } from './page-render.js';

/**
 * `ralph monitor --web`: the dashboard over node:http. Nothing is served from a path a client
 * sends: loops are picked by their id from this server's own list (`ralph list`), logs by
 * iteration and attempt numbers (see logs.ts), and the page's three files are constants.
 */

export interface DashboardOptions {
  repoRoot: string | undefined;
  /** Loop directories named on the command line; the first is shown first. */
  dirs: readonly string[];
  host: string;
  port: number;
  /** Required when `host` is not a loopback address. */
  token: string | undefined;
  /** Renders one raw log line for a person (the agent's format is the CLI's business). */
  renderLog: (raw: string) => string[];
  pollMs?: number;
  /** ralph's user state dir, to check evidence.jsonl's seals. */
  stateDir?: string | undefined;
}

export interface Dashboard {
  url: string;
  port: number;
  close(): Promise<void>;
}

const HEARTBEAT_MS = 15_000;
const HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer', // a token in the URL must not leave in a Referer
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'Cache-Control': 'no-store',
};

export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  if (!isLoopback(options.host) && options.token === undefined) {
    throw new Error(`serving on ${options.host} needs a token`);
  }
  const problem = options.token === undefined ? undefined : tokenProblem(options.token);
  if (problem !== undefined) throw new Error(`the dashboard token is too weak: ${problem}`);
  const feeds = new Map<string, LoopFeed>();
  const streams = new Set<ServerResponse>();
  const loops = (): Promise<LoopListing[]> =>
    listLoops({ repoRoot: options.repoRoot, dirs: options.dirs });
  const feedFor = async (id: string | null): Promise<LoopFeed | undefined> => {
    if (id === null) return undefined;
    const loop = (await loops()).find((each) => each.id === id);
    if (loop === undefined) return undefined;
    let feed = feeds.get(loop.dir);
    if (feed === undefined) {
      feed = createLoopFeed(loop.id, loop.dir, {
        stateDir: options.stateDir,
        logHref: (row) =>
          `/log?${new URLSearchParams({ loop: loop.id, iteration: String(row.iteration), attempt: String(row.attempt) }).toString()}`,
        ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }),
      });
      feeds.set(loop.dir, feed);
    }
    await feed.ready();
    return feed;
  };

  /** Every loop, and the one a page opens on: the DIR named, else a running one, else the first. */
  const selection = async () => {
    const all = await loops();
    const named = options.dirs[0];
    const selected =
      all.find((loop) => loop.dir === named) ??
      all.find((loop) => loop.state === 'RUNNING') ??
      all[0];
    return { all, selected };
  };

  /** The answer to a request; undefined once it is answered already (an event stream). */
  const route = async (
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
  ): Promise<Reply | undefined> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'only GET\n');
    switch (url.pathname) {
      case '/': {
        const { all, selected } = await selection();
        const id = url.searchParams.get('loop') ?? selected?.id ?? null;
        const feed = await feedFor(id);
        const body = renderPage(all, id ?? undefined, feed?.snapshot());
        return { status: 200, type: 'text/html; charset=utf-8', body };
      }
      case '/app.js':
        return { status: 200, type: 'text/javascript; charset=utf-8', body: APP_JS };
      case '/app.css':
        return { status: 200, type: 'text/css; charset=utf-8', body: PAGE_CSS };
      case '/api/loops': {
        const { all, selected } = await selection();
        return json({ loops: all, selected: selected?.id ?? null });
      }
      case '/api/view': {
        const feed = await feedFor(url.searchParams.get('loop'));
        return feed === undefined ? text(404, 'no such loop\n') : json(feed.snapshot());
      }
      case '/api/events': {
        const feed = await feedFor(url.searchParams.get('loop'));
        if (feed === undefined) return text(404, 'no such loop\n');
        response.writeHead(200, {
          ...HEADERS,
          'Content-Type': 'text/event-stream; charset=utf-8',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        const unsubscribe = feed.subscribe(response, lastEventId(request, url));
        streams.add(response);
        request.on('close', () => {
          unsubscribe();
          streams.delete(response);
        });
        return undefined;
      }
      case '/log':
        return logReply(url);
      default:
        return text(404, 'not found\n');
    }
  };

  const logReply = async (url: URL): Promise<Reply> => {
    const id = url.searchParams.get('loop');
    const loop = (await loops()).find((each) => each.id === id);
    const iteration = counter(url.searchParams.get('iteration'));
    const attempt = counter(url.searchParams.get('attempt') ?? '1');
    if (loop === undefined || iteration === undefined || attempt === undefined) {
      return text(404, 'no such log\n');
    }
    const file = await safeIterationLog(loop.dir, iteration, attempt);
    if (file === undefined) return text(404, 'no such log\n');
    const content = await readFile(file, 'utf8');
    if (url.searchParams.get('raw') === '1') {
      return { status: 200, type: 'text/plain; charset=utf-8', body: content };
    }
    const lines = content.split('\n').flatMap((line) => options.renderLog(line));
    const body = logPage({ loopId: loop.id, iteration, attempt, lines });
    return { status: 200, type: 'text/html; charset=utf-8', body };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://dashboard.invalid');
    const auth = authorize(request, url, { token: options.token });
    if (!auth.ok) {
      send(response, text(auth.status, `${auth.message}\n`));
      return;
    }
    if (auth.setCookie !== undefined) response.setHeader('Set-Cookie', auth.setCookie);
    const reply = await route(request, response, url);
    if (reply !== undefined) send(response, reply);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) response.destroy();
      else send(response, text(500, `${String(error)}\n`));
    });
  });
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': ping\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    async close() {
      clearInterval(heartbeat);
      for (const feed of feeds.values()) feed.close();
      for (const stream of streams) stream.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

interface Reply {
  status: number;
  type: string;
  body: string;
}

function text(status: number, body: string): Reply {
  return { status, type: 'text/plain; charset=utf-8', body };
}

function json(value: unknown): Reply {
  return { status: 200, type: 'application/json; charset=utf-8', body: JSON.stringify(value) };
}

function send(response: ServerResponse, reply: Reply): void {
  response.writeHead(reply.status, { ...HEADERS, 'Content-Type': reply.type });
  response.end(response.req.method === 'HEAD' ? undefined : reply.body);
}

function lastEventId(request: IncomingMessage, url: URL): number | undefined {
  const header = request.headers['last-event-id'];
  const value = (Array.isArray(header) ? header[0] : header) ?? url.searchParams.get('lastEventId');
  if (value === null || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

function counter(value: string | null): number | undefined {
  return value !== null && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : undefined;
}
