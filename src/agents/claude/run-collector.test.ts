import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { corpusPath, describeCorpus } from '../../../test/corpus.js';
import { createLineSplitter } from '../line-splitter.js';
import type { AgentEvent } from '../types.js';
import { createRunCollector } from './run-collector.js';
import { parseStreamLine } from './stream-parser.js';

/** Feeds a transcript through the same splitter and parser as a live run. */
function collect(file: string) {
  const splitter = createLineSplitter();
  const collector = createRunCollector();
  const toolResults: string[] = [];
  const feed = (line: string) => {
    const parsed = parseStreamLine(line);
    for (const event of parsed.events)
      if (event.type === 'tool_result') toolResults.push(event.text);
    collector.add(parsed);
  };
  for (const line of splitter.push(readFileSync(corpusPath('transcripts', file), 'utf8')))
    feed(line);
  const last = splitter.end();
  if (last !== undefined) feed(last);
  return { run: collector.collected(), toolResults };
}

const OPUS = 'claude-opus-4-5-20251101';

interface Expected {
  lines: number;
  sessionId: string | undefined;
  model: string | undefined;
  toolCalls: number;
  finalTextEnd: string | undefined;
  result: { subtype: string; isError: boolean; costUsd: number; numTurns: number } | undefined;
  rateLimits: { status: string; resetsAt: number }[];
  /** The trap: promise text that appears only inside tool_results. */
  promiseInToolResults?: boolean;
}

const CASES: Record<string, Expected> = {
  'hybrid-f21-iteration-1.jsonl': {
    lines: 86,
    sessionId: 'd0de3945-972a-4eaf-87aa-27fdfa52269b',
    model: OPUS,
    toolCalls: 35,
    // The run was cut after a tool call: the text before it is no final message.
    finalTextEnd: undefined,
    result: undefined,
    rateLimits: [],
    promiseInToolResults: true,
  },
  'hybrid33-iteration-10.jsonl': {
    lines: 88,
    sessionId: 'cd32599b-f878-40cc-b995-4e0346542850',
    model: OPUS,
    toolCalls: 32,
    finalTextEnd: 'STORY-007 is complete.\n\n<promise>STORY_COMPLETE</promise>',
    result: { subtype: 'success', isError: false, costUsd: 1.2835714999999999, numTurns: 33 },
    rateLimits: [],
  },
  'hybrid33-iteration-12.jsonl': {
    lines: 91,
    sessionId: 'eb53aff3-0134-420a-8f95-116ab5562283',
    model: OPUS,
    toolCalls: 34,
    finalTextEnd: '- 7 e2e tests pass\n\n<promise>STORY_COMPLETE</promise>',
    result: { subtype: 'success', isError: false, costUsd: 1.8524915000000004, numTurns: 35 },
    rateLimits: [],
    promiseInToolResults: true,
  },
  'hybrid33-iteration-17.jsonl': {
    lines: 87,
    sessionId: '141c18b1-ad66-4ed8-894a-aa5eb11ca695',
    model: OPUS,
    toolCalls: 32,
    finalTextEnd: 'all 350 unit tests pass\n\n<promise>STORY_COMPLETE</promise>',
    result: { subtype: 'success', isError: false, costUsd: 1.2240177499999996, numTurns: 33 },
    rateLimits: [],
  },
  'hybrid33-iteration-3.jsonl': {
    lines: 128,
    sessionId: '04674b72-cbbb-457a-a7d2-0b4906d57924',
    model: OPUS,
    toolCalls: 47,
    // The run was cut after a tool call: the text before it is no final message.
    finalTextEnd: undefined,
    result: undefined,
    rateLimits: [],
    promiseInToolResults: true,
  },
  'hybrid33-iteration-5.jsonl': {
    lines: 141,
    sessionId: '2f144f55-b144-458a-954d-b6813c683a79',
    model: OPUS,
    toolCalls: 54,
    finalTextEnd:
      'so I should signal story completion and stop.\n\n<promise>STORY_COMPLETE</promise>',
    result: { subtype: 'success', isError: false, costUsd: 2.38030975, numTurns: 55 },
    rateLimits: [],
  },
  'hybrid33-iteration-8.jsonl': {
    lines: 165,
    sessionId: 'ae755311-74b6-49f3-b7a5-6afe94ea214f',
    model: OPUS,
    toolCalls: 62,
    // The run was cut after a tool call: the text before it is no final message.
    finalTextEnd: undefined,
    result: undefined,
    rateLimits: [],
    promiseInToolResults: true,
  },
  'max-turns-result-only.jsonl': {
    lines: 1,
    sessionId: '495cc7e5-d22e-4192-92ba-4ce2d14827a6',
    model: undefined,
    toolCalls: 0,
    finalTextEnd: undefined,
    result: {
      subtype: 'error_max_turns',
      isError: true,
      costUsd: 1.4020935000000005,
      numTurns: 41,
    },
    rateLimits: [],
  },
  'mufu-basic.jsonl': {
    lines: 4,
    sessionId: 'a7c9c5c6-ae75-4090-9d47-13fc2c0f23b7',
    model: 'claude-opus-5[1m]',
    toolCalls: 0,
    finalTextEnd: 'AGENT_SPIKE_OK',
    result: { subtype: 'success', isError: false, costUsd: 0.07480450000000001, numTurns: 1 },
    rateLimits: [{ status: 'allowed', resetsAt: 1_788_934_800_000 }],
  },
  'mufu-tools.jsonl': {
    lines: 6,
    sessionId: 'a7c9c5c6-ae75-4090-9d47-13fc2c0f23b7',
    model: 'claude-opus-5[1m]',
    toolCalls: 1,
    finalTextEnd: 'AGENT_SPIKE_FILE_OK',
    result: { subtype: 'success', isError: false, costUsd: 0.0265025, numTurns: 2 },
    rateLimits: [{ status: 'allowed', resetsAt: 1_788_934_800_000 }],
  },
  'weekly-limit-event-only.jsonl': {
    lines: 1,
    sessionId: 'd8c84a51-da8f-432b-94e5-ffcb5e8b4f44',
    model: undefined,
    toolCalls: 0,
    finalTextEnd: undefined,
    result: undefined,
    rateLimits: [{ status: 'rejected', resetsAt: 1_785_322_800_000 }],
  },
};

describeCorpus('createRunCollector on the real transcripts', () => {
  it.each(Object.entries(CASES))('%s', (file, expected) => {
    const { run, toolResults } = collect(file);
    expect(run.lineCount).toBe(expected.lines);
    expect(run.sessionId).toBe(expected.sessionId);
    expect(run.model).toBe(expected.model);
    expect(run.toolCalls).toHaveLength(expected.toolCalls);
    expect(run.droppedToolCalls).toBe(0);
    expect(run.rateLimits).toMatchObject(expected.rateLimits);
    if (expected.finalTextEnd === undefined) expect(run.finalText).toBeUndefined();
    else expect(run.finalText?.endsWith(expected.finalTextEnd)).toBe(true);
    if (expected.result === undefined) expect(run.result).toBeUndefined();
    else expect(run.result).toMatchObject(expected.result);
    if (run.result?.resultText !== undefined) expect(run.finalText).toBe(run.result.resultText);
    if (expected.promiseInToolResults === true) {
      expect(toolResults.some((text) => text.includes('<promise>COMPLETE</promise>'))).toBe(true);
      expect(run.finalText ?? '').not.toContain('<promise>COMPLETE</promise>');
    }
  });

  it('records every tool call with a one-line summary', () => {
    const { run } = collect('hybrid33-iteration-10.jsonl');
    for (const call of run.toolCalls) {
      expect(call.summary).not.toContain('\n');
      expect(call.summary.length).toBeLessThanOrEqual(200);
      expect(call.id).toMatch(/^toolu_/);
    }
    expect(run.toolCalls.filter((call) => call.name === 'Bash').length).toBe(16);
    expect(run.toolCalls.every((call) => call.name === 'TodoWrite' || call.summary !== '')).toBe(
      true,
    );
  });

  it('reads usage, duration and denials from the result line', () => {
    expect(collect('hybrid33-iteration-10.jsonl').run.result).toMatchObject({
      apiErrorStatus: undefined,
      sessionId: 'cd32599b-f878-40cc-b995-4e0346542850',
      durationMs: 292_237,
      permissionDenials: [],
      usage: {
        inputTokens: 2,
        outputTokens: 9819,
        cacheReadInputTokens: 1_445_631,
        cacheCreationInputTokens: 46_772,
      },
    });
  });
});

describe('createRunCollector', () => {
  const line = (events: AgentEvent[], extra: { parentToolUseId?: string } = {}) => ({
    events,
    sessionId: undefined,
    model: undefined,
    parentToolUseId: extra.parentToolUseId,
  });

  it('caps the tool-call list and counts what it dropped', () => {
    const collector = createRunCollector({ maxToolCalls: 2 });
    for (let index = 0; index < 5; index += 1) {
      collector.add(
        line([{ type: 'tool_use', call: { id: `t${index}`, name: 'Bash', summary: 'ls' } }]),
      );
    }
    const run = collector.collected();
    expect(run.toolCalls.map((call) => call.id)).toEqual(['t0', 't1']);
    expect(run.droppedToolCalls).toBe(3);
    expect(run.lineCount).toBe(5);
  });

  it("ignores a sub-agent's text for finalText and keeps the latest rate limits", () => {
    const collector = createRunCollector({ maxRateLimits: 2 });
    collector.add(line([{ type: 'text', text: 'main' }]));
    collector.add(
      line([{ type: 'text', text: 'sub <promise>COMPLETE</promise>' }], {
        parentToolUseId: 'toolu_1',
      }),
    );
    for (const status of ['a', 'b', 'c']) {
      collector.add(
        line([
          { type: 'rate_limit', info: { status, resetsAt: undefined, rateLimitType: undefined } },
        ]),
      );
    }
    const run = collector.collected();
    expect(run.finalText).toBe('main');
    expect(run.rateLimits.map((info) => info.status)).toEqual(['b', 'c']);
  });

  it('takes session id and model from the first lines that have them when init is missing', () => {
    const collector = createRunCollector();
    collector.add({ ...line([{ type: 'text', text: 'x' }]), sessionId: 's-1', model: 'opus' });
    collector.add({ ...line([{ type: 'unknown', raw: '' }]), sessionId: 's-2', model: 'sonnet' });
    expect(collector.collected()).toMatchObject({ sessionId: 's-1', model: 'opus' });
  });
});
