import { parentPort, workerData } from 'node:worker_threads';
import { judgeToolCall, type ToolCall, type Verdict } from './decide.js';
import { failClosed } from './hook-io.js';
import type { GuardPolicy } from './policy.js';
import { loadShellParser } from './shell/parse.js';

/**
 * The guard service's worker thread (judge-worker.ts starts it): judges one tool call per
 * message, off ralph's event loop, so a call that takes long to judge delays no other part of
 * ralph, and the service can answer "over budget" and replace this thread instead of waiting.
 */

export interface JudgeRequest {
  id: number;
  call: ToolCall;
}

export type JudgeReply =
  | { type: 'verdict'; id: number; verdict: Verdict }
  | { type: 'ready' }
  | { type: 'failed'; message: string };

const port = parentPort;
if (port === null) throw new Error('decide-worker.js runs only as a worker thread');
const { policy } = workerData as { policy: GuardPolicy };
const parser = loadShellParser();
parser.then(
  () => {
    port.postMessage({ type: 'ready' } satisfies JudgeReply);
  },
  (error: unknown) => {
    port.postMessage({
      type: 'failed',
      message: error instanceof Error ? error.message : String(error),
    } satisfies JudgeReply);
  },
);
port.on('message', (request: JudgeRequest) => {
  void parser.then(
    () => {
      judgeOne(request);
    },
    () => undefined,
  );
});

function judgeOne({ id, call }: JudgeRequest): void {
  let verdict: Verdict;
  try {
    verdict = judgeToolCall(call, policy);
  } catch (error) {
    verdict = failClosed(
      `internal error (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  port?.postMessage({ type: 'verdict', id, verdict } satisfies JudgeReply);
}
