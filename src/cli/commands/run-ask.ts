import { terminalText } from '../../util/control-chars.js';
import { createInterface } from 'node:readline';
import type { LoopDependencies } from '../../core/engine.js';

/**
 * `--on-usage-limit ask` on a terminal: "wait for the reset or exit?" on stderr (stdout may be
 * --json). Enter or "w" waits, "e" exits; the engine gives up after the configured timeout and
 * exits. Without a terminal there is nobody to ask: undefined, and the engine exits at once.
 */
export function usageLimitPrompt(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): LoopDependencies['askUsageLimit'] {
  if (!input.isTTY) return undefined;
  return (question, signal) =>
    new Promise((resolve) => {
      const rl = createInterface({ input, output, terminal: true });
      const done = (answer: 'wait' | 'exit'): void => {
        rl.close();
        resolve(answer);
      };
      // Ctrl+C while asking pauses the run like anywhere else.
      rl.on('SIGINT', () => {
        done('exit');
        process.kill(process.pid, 'SIGINT');
      });
      signal.addEventListener('abort', () => {
        done('exit');
      });
      const reset =
        question.resetAt === undefined
          ? 'at an unknown time'
          : `at ${question.resetAt.toLocaleString()}`;
      rl.question(
        `\nralph: usage limit reached: ${terminalText(question.message)}\n` +
          `  It resets ${reset}. Wait until ${question.until.toLocaleString()} and resume [W], or exit now [e]? `,
        (answer) => {
          done(/^\s*(e|exit|n|no|q|quit)\s*$/i.test(answer) ? 'exit' : 'wait');
        },
      );
    });
}
