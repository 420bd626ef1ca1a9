import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { appendAudit, summariseInput, type AuditEntry } from './audit.js';
import type { Verdict } from './decide.js';
import { failClosed, preToolUseOutput, parsePreToolUseInput } from './hook-io.js';
import { startJudgeWorker } from './judge-worker.js';
import type { GuardPolicy } from './policy.js';

/**
 * The guard inside `ralph run`: the same policy as `ralph guard`, served on 127.0.0.1 to Claude
 * Code's HTTP hook, so a tool call costs one local request (well under a millisecond of
 * policy) instead of a Node process (36–90 ms, more with the parser). The decisions are made in a
 * worker thread with a time budget (judge-worker.ts): ralph's event loop never waits for one, and
 * a call that takes longer than the budget is denied, never left to the hook's timeout.
 *
 * Claude Code treats an HTTP hook that fails — connection refused, a non-200 status, a
 * timeout, a body that is not JSON — as "no decision" and runs the tool (measured: fail open).
 * So this service never answers anything but 200 with a decision: a wrong token, a bad body,
 * an internal error all get `deny`. That the service is there at all is ensured by its owner
 * (run/guard.ts): the agent dies with ralph, and ralph stops the agent the moment
 * this server stops listening (`onFailure`).
 */

export const GUARD_PATH = '/pre-tool-use';
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface GuardDecision extends AuditEntry {
  toolUseId: string | undefined;
}

export interface GuardServiceOptions {
  policy: GuardPolicy;
  /** logs/audit.jsonl of the loop directory. */
  auditLog: string;
  onDecision?: (decision: GuardDecision) => void;
  now?: () => Date;
  /** Longest time one decision may take (guard.timeBudgetMs); over it, the call is denied. */
  timeBudgetMs?: number | undefined;
  /** The worker script (tests); by default dist/guard/decide-worker.js. */
  workerUrl?: URL | undefined;
}

export interface GuardService {
  url: string;
  token: string;
  /** Called once if the server stops listening or fails while the run still needs it. */
  onFailure(listener: (error: Error) => void): void;
  /** Stops the service on purpose (no failure is reported). */
  close(): Promise<void>;
  /** Decision latency of every request so far, in milliseconds (for the benchmark). */
  latencies: number[];
  /** The HTTP server, for tests that make it fail. */
  server: Server;
  /** Worker threads started so far (1 + those replaced after a call over budget). */
  workersStarted(): number;
}

export async function startGuardService(options: GuardServiceOptions): Promise<GuardService> {
  const token = randomBytes(24).toString('base64url');
  const expected = Buffer.from(`Bearer ${token}`);
  const now = options.now ?? (() => new Date());
  const latencies: number[] = [];
  const failureListeners: ((error: Error) => void)[] = [];
  let closing = false;
  let failure: Error | undefined;
  const fail = (error: Error) => {
    if (closing || failure !== undefined) return;
    failure = error;
    for (const listener of failureListeners) listener(error);
  };
  // The worker loads the parser (~60 ms, mostly compiling WASM) while the first agent starts; a
  // parser that cannot load stops the run as a failed server does (every call would be refused).
  const judge = startJudgeWorker({
    policy: options.policy,
    budgetMs: options.timeBudgetMs,
    workerUrl: options.workerUrl,
    onFailure: fail,
  });

  const server = createServer((request, response) => {
    const started = performance.now();
    void handle(request, response, started);
  });
  server.keepAliveTimeout = 60_000;

  async function handle(request: IncomingMessage, response: ServerResponse, started: number) {
    let verdict: Verdict;
    let body = '';
    try {
      body = await readBody(request);
      const authorization = Buffer.from(request.headers.authorization ?? '');
      if (authorization.length !== expected.length || !timingSafeEqual(authorization, expected)) {
        verdict = failClosed("the request did not carry this run's guard token");
        send(response, verdict);
        return;
      }
      const parsed = parsePreToolUseInput(body);
      if (!parsed.ok) verdict = failClosed(parsed.problem);
      else {
        const { toolName, toolInput, cwd, transcriptPath } = parsed.input;
        verdict = await judge.judge({ toolName, toolInput, cwd, transcriptPath });
      }
      const ms = Math.round((performance.now() - started) * 1000) / 1000;
      latencies.push(ms);
      const audit: AuditEntry = {
        at: now().toISOString(),
        sessionId: parsed.ok ? parsed.input.sessionId : undefined,
        tool: parsed.ok ? parsed.input.toolName : '(unknown)',
        input: parsed.ok ? summariseInput(parsed.input.toolInput) : body.slice(0, 200),
        decision: verdict.decision,
        rule: verdict.rule,
        reason: verdict.reason,
        ms,
      };
      appendAudit(options.auditLog, audit);
      options.onDecision?.({ ...audit, toolUseId: parsed.ok ? parsed.input.toolUseId : undefined });
    } catch (error) {
      verdict = failClosed(
        `internal error (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    send(response, verdict);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => {
    fail(error);
  });
  server.on('close', () => {
    fail(new Error('the guard service stopped listening'));
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${GUARD_PATH}`,
    token,
    latencies,
    server,
    workersStarted: () => judge.started(),
    onFailure: (listener) => {
      failureListeners.push(listener);
      // A failure before anyone listened (the parser's load) still reaches the listener.
      if (failure !== undefined) listener(failure);
    },
    close: async () => {
      closing = true;
      server.closeAllConnections();
      await Promise.all([
        judge.close(),
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
      ]);
    },
  };
}

function send(response: ServerResponse, verdict: Verdict): void {
  if (response.headersSent) return;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(preToolUseOutput(verdict));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('the hook input is too large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}
