/**
 * A fake Anthropic Messages API for driving the real Claude Code CLI offline (facts §3).
 *
 * How to script a test:
 *
 *   const fake = await startFakeAnthropic(
 *     scriptedSteps([
 *       reply(write(join(repo, 'a.txt'), 'hello\n')),   // turn 1: a tool call
 *       reply(bash('echo hi > b.txt')),                   // turn 2, after the Write's tool_result
 *       'All done. <promise>COMPLETE</promise>',          // turn 3: text ends the session
 *     ]),
 *   );
 *   const env = claudeEnv({ baseUrl: fake.url, root });  // ../real-claude/env.ts
 *   … spawn claude (or ralph with RALPH_CLAUDE_BIN=claudeBinary()) …
 *   expect(fake.messageRequests().at(-1)?.toolResults()).toHaveLength(2);
 *   await fake.close();
 *
 * A script is `(request: ParsedRequest) => Reply | string`. Pick the reply from the request
 * (how many assistant turns it holds, its prompt, its tool results), never from a counter: the
 * CLI retries, and falls back from a broken stream to a non-streaming request, with the same
 * conversation, and both must get the same answer. `scriptedSteps` does that for you. For runs
 * with several claude processes (one per ralph iteration) see `perSession`/`sessionSequence`
 * in script.ts: each process has its own session id, which `request.sessionId` exposes.
 *
 * Replies: `{content:[text|tool_use]}` (streamed as SSE when the request says `stream:true`,
 * else one JSON message), an HTTP error `{status, type, message, headers}` (see `apiError`),
 * `{hang:true}`, or `{raw, status}`. Everything except `POST /v1/messages` gets a quick 404.
 * A script that throws answers 400 (which the CLI does not retry) and lands in `scriptErrors`.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ParsedRequest } from './conversation.js';
import { buildMessage, DEFAULT_USAGE, sseEvents } from './sse.js';
import type { Reply, Script, Usage } from './types.js';

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  /** Set for `POST /v1/messages`. */
  conversation?: ParsedRequest;
  reply?: Reply;
}

export interface FakeAnthropic {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** The Messages API requests only, in arrival order. */
  messageRequests: () => ParsedRequest[];
  /** Session ids in order of first appearance: one per claude process. */
  sessions: () => string[];
  scriptErrors: Error[];
  setScript: (script: Script) => void;
  close: () => Promise<void>;
}

export interface FakeOptions {
  /** Usage reported by every reply that does not set its own. */
  usage?: Partial<Usage>;
}

export async function startFakeAnthropic(
  script: Script,
  options: FakeOptions = {},
): Promise<FakeAnthropic> {
  const defaultUsage: Usage = { ...DEFAULT_USAGE, ...options.usage };
  const requests: RecordedRequest[] = [];
  const scriptErrors: Error[] = [];
  let current = script;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const record: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: parseJson(text),
      };
      requests.push(record);
      const path = new URL(record.url, 'http://fake').pathname;
      if (record.method !== 'POST' || path !== '/v1/messages' || !isObject(record.body)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const conversation = new ParsedRequest(record.body, req.headers);
      record.conversation = conversation;
      void answer(conversation, record, res);
    });
  });

  async function answer(
    request: ParsedRequest,
    record: RecordedRequest,
    res: ServerResponse,
  ): Promise<void> {
    let reply: Reply;
    try {
      const result = await current(request);
      reply = typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      scriptErrors.push(err);
      reply = {
        status: 400,
        type: 'invalid_request_error',
        message: `fake-anthropic script error: ${err.message}`,
      };
    }
    record.reply = reply;
    if ('hang' in reply) return;
    if ('raw' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' });
      res.end(reply.raw);
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(
        JSON.stringify({ type: 'error', error: { type: reply.type, message: reply.message } }),
      );
      return;
    }
    if (reply.delayMs !== undefined) await sleep(reply.delayMs);
    const message = buildMessage(reply, request, defaultUsage);
    const headers = { 'request-id': `req_${message.id}`, ...reply.headers };
    if (!request.stream) {
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(message));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      ...headers,
    });
    for (const chunk of sseEvents(message)) res.write(chunk);
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    scriptErrors,
    messageRequests: () => requests.flatMap((r) => (r.conversation ? [r.conversation] : [])),
    sessions: () => [
      ...new Set(
        requests.flatMap((r) => (r.conversation?.sessionId ? [r.conversation.sessionId] : [])),
      ),
    ],
    setScript: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging replies keep sockets open; drop them so close() returns at once.
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
