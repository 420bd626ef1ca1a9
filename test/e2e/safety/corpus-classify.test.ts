import { expect, it } from 'vitest';
import { summariseLog } from '../../../src/agents/claude/inspect-log.js';
import { classifyLog } from '../../../src/cli/commands/inspect-classify.js';
import { classifyRun } from '../../../src/safety/classify.js';
import { corpusPath, describeCorpus } from '../../corpus.js';

/**
 * The classifier on real transcripts from the shared corpus (../shared/corpus/transcripts), read
 * by path and parsed by the real stream parser, as `ralph inspect` reads a log. Tool results in
 * several of them quote usage-limit text, 429s and 529s (the agents read loop tools' sources):
 * none of that may count.
 */

const transcript = (name: string) => corpusPath('transcripts', `${name}.jsonl`);

describeCorpus('classifier on the shared corpus', () => {
  it('weekly-limit-event-only: a rejected rate_limit_event, resetsAt in epoch seconds', async () => {
    const file = transcript('weekly-limit-event-only');
    const verdict = await classifyLog(file, await summariseLog(file));
    expect(verdict).toMatchObject({
      kind: 'usage_limit',
      resetAt: new Date(1785322800 * 1000).toISOString(),
      basis: 'log only',
    });
    expect(verdict.why).toContain('a rejected rate_limit_event');
  });

  it.each([
    ['mufu-basic', 'allowed rate_limit_event in a normal run'],
    ['mufu-tools', 'allowed rate_limit_event between a tool result and the final text'],
    [
      'hybrid33-iteration-12',
      'usage-limit, 5-hour limit, 429 and 529 text only inside a tool_result',
    ],
    ['hybrid33-iteration-10', 'tool results mention 429/529'],
    ['hybrid33-iteration-17', 'a normal successful iteration'],
    ['hybrid33-iteration-5', 'result line followed by more lines'],
    ['max-turns-result-only', 'error_max_turns, is_error true: an ordinary failure'],
  ])('%s is not a usage limit, transient or fatal (%s)', async (name) => {
    const file = transcript(name);
    const verdict = await classifyLog(file, await summariseLog(file));
    expect(verdict.kind, verdict.why).toBe('none');
  });

  it.each(['hybrid-f21-iteration-1', 'hybrid33-iteration-3', 'hybrid33-iteration-8'])(
    '%s (cut before its result, limit text in tool results) is no usage limit even as a failed run',
    async (name) => {
      const summary = await summariseLog(transcript(name));
      expect(summary.result).toBeUndefined();
      for (const exitCode of [0, 1]) {
        const verdict = classifyRun(
          {
            exitCode,
            timedOut: false,
            canceled: false,
            spawnError: undefined,
            result: summary.result,
            finalText: summary.finalText,
            rateLimits: summary.rateLimits,
            stderrTail: '',
            lineCount: summary.lineCount,
          },
          { now: new Date('2026-01-23T12:00:00Z'), timeZone: 'UTC' },
        );
        expect(verdict.kind, verdict.why).not.toBe('usage_limit');
        expect(verdict.kind, verdict.why).not.toBe('fatal');
      }
    },
  );

  it('max-turns-result-only killed by our timeout is a timeout, never a limit', async () => {
    const summary = await summariseLog(transcript('max-turns-result-only'));
    const verdict = classifyRun(
      {
        exitCode: 124,
        timedOut: false,
        canceled: false,
        spawnError: undefined,
        result: summary.result,
        finalText: 'Claude AI usage limit reached|1755615600',
        rateLimits: [],
        stderrTail: '',
        lineCount: summary.lineCount,
      },
      { now: new Date(), timeZone: 'UTC' },
    );
    expect(verdict.kind).toBe('timeout');
  });
});
