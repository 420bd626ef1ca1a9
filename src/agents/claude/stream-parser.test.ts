import { describe, expect, it } from 'vitest';
import { epochMs, parseStreamLine } from './stream-parser.js';

const events = (line: string) => parseStreamLine(line).events;

describe('parseStreamLine', () => {
  it.each([
    '=== Iteration 1 ===',
    'Timestamp: 2026-01-23T09:34:57Z',
    '',
    'Exit code: 0',
    '{"type":"assistant","message":',
    '[1,2]',
    '42',
    'null',
    '"text"',
  ])('keeps %j as an unknown line', (line) => {
    expect(parseStreamLine(line)).toEqual({
      events: [{ type: 'unknown', raw: line }],
      sessionId: undefined,
      model: undefined,
      parentToolUseId: undefined,
    });
  });

  it('reads system/init', () => {
    const line =
      '{"type":"system","subtype":"init","cwd":"/w","session_id":"s-1","tools":["Bash"],"model":"claude-opus-4-5-20251101","claude_code_version":"2.1.2"}';
    expect(parseStreamLine(line)).toEqual({
      events: [
        { type: 'init', sessionId: 's-1', model: 'claude-opus-4-5-20251101', version: '2.1.2' },
      ],
      sessionId: 's-1',
      model: 'claude-opus-4-5-20251101',
      parentToolUseId: undefined,
    });
  });

  it('turns each assistant content block into its own event, in order', () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: {
        model: 'claude-sonnet-5',
        content: [
          { type: 'thinking', thinking: 'hmm' },
          { type: 'text', text: 'Running tests' },
          {
            type: 'tool_use',
            id: 'toolu_1',
            name: 'Bash',
            input: { command: 'npm test\n  -- --run' },
          },
          {
            type: 'tool_use',
            id: 'toolu_2',
            name: 'Write',
            input: { file_path: '/a.ts', content: 'x' },
          },
        ],
      },
      parent_tool_use_id: null,
      session_id: 's-1',
    });
    const parsed = parseStreamLine(line);
    expect(parsed.events).toEqual([
      { type: 'thinking', text: 'hmm' },
      { type: 'text', text: 'Running tests' },
      { type: 'tool_use', call: { id: 'toolu_1', name: 'Bash', summary: 'npm test -- --run' } },
      { type: 'tool_use', call: { id: 'toolu_2', name: 'Write', summary: '/a.ts' } },
    ]);
    expect(parsed).toMatchObject({ sessionId: 's-1', model: 'claude-sonnet-5' });
    expect(parsed.parentToolUseId).toBeUndefined();
  });

  it("marks a sub-agent's lines and never takes the model from a synthetic error message", () => {
    const sub = parseStreamLine(
      '{"type":"assistant","message":{"model":"claude-haiku-4-5","content":[{"type":"text","text":"found it"}]},"parent_tool_use_id":"toolu_9"}',
    );
    expect(sub.parentToolUseId).toBe('toolu_9');
    const synthetic = parseStreamLine(
      '{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"API Error: 529 Overloaded"}]},"error":"overloaded"}',
    );
    expect(synthetic.model).toBeUndefined();
    expect(synthetic.events).toEqual([{ type: 'text', text: 'API Error: 529 Overloaded' }]);
  });

  it('reads an assistant line with only a thinking block as thinking (redacted: no text)', () => {
    const line = '{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"x"}]}}';
    expect(events(line)).toEqual([{ type: 'thinking', text: 'x' }]);
    const redacted = '{"type":"assistant","message":{"content":[{"type":"redacted_thinking"}]}}';
    expect(events(redacted)).toEqual([{ type: 'thinking', text: '' }]);
  });

  it('reads tool_result content given as a string or as text blocks', () => {
    expect(
      events(
        '{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"1\\tOK\\n"}]}}',
      ),
    ).toEqual([{ type: 'tool_result', toolUseId: 'toolu_1', isError: false, text: '1\tOK\n' }]);
    expect(
      events(
        JSON.stringify({
          type: 'user',
          message: {
            content: [
              {
                type: 'tool_result',
                tool_use_id: 'toolu_2',
                is_error: true,
                content: [
                  { type: 'text', text: 'first' },
                  { type: 'image', source: {} },
                  { type: 'text', text: 'second' },
                ],
              },
            ],
          },
        }),
      ),
    ).toEqual([
      { type: 'tool_result', toolUseId: 'toolu_2', isError: true, text: 'first\nsecond' },
    ]);
  });

  it('keeps a user text line (Stop-hook feedback) as unknown', () => {
    const line =
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Stop hook feedback:\\nkeep going"}]},"isSynthetic":true}';
    expect(events(line)).toEqual([{ type: 'unknown', raw: line }]);
  });

  it('reads rate_limit_event, normalising resetsAt from seconds to milliseconds', () => {
    expect(
      events(
        '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1785322800,"rateLimitType":"seven_day","overageStatus":"rejected"},"session_id":"s"}',
      ),
    ).toEqual([
      {
        type: 'rate_limit',
        info: {
          status: 'rejected',
          resetsAt: 1_785_322_800_000,
          rateLimitType: 'seven_day',
          overageStatus: 'rejected',
        },
      },
    ]);
    const bare = '{"type":"rate_limit_event"}';
    expect(events(bare)).toEqual([{ type: 'unknown', raw: bare }]);
    expect(events('{"type":"rate_limit_event","rate_limit_info":{}}')).toEqual([
      {
        type: 'rate_limit',
        info: { status: 'unknown', resetsAt: undefined, rateLimitType: undefined },
      },
    ]);
  });

  it('reads system/api_retry', () => {
    expect(
      events(
        '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":543.11,"error_status":429,"error":"rate_limit","session_id":"s"}',
      ),
    ).toEqual([
      {
        type: 'api_retry',
        attempt: 1,
        maxRetries: 10,
        delayMs: 543.11,
        errorStatus: 429,
        error: 'rate_limit',
      },
    ]);
    expect(
      events(
        '{"type":"system","subtype":"api_retry","attempt":2,"error_status":null,"error":"unknown"}',
      ),
    ).toEqual([
      {
        type: 'api_retry',
        attempt: 2,
        maxRetries: undefined,
        delayMs: undefined,
        errorStatus: undefined,
        error: 'unknown',
      },
    ]);
  });

  it('reads the usage windows and overage fields of a rate_limit_event', () => {
    const line = JSON.stringify({
      type: 'rate_limit_event',
      rate_limit_info: {
        status: 'allowed_warning',
        resetsAt: 1788934800,
        rateLimitType: 'five_hour',
        utilization: 0.91,
        overageDisabledReason: 'out_of_credits',
        isUsingOverage: false,
        unifiedWindows: {
          five_hour: { utilization: 0.91, resetsAt: 1788934800, status: 'allowed_warning' },
          seven_day: { utilization: 0.24, resetsAt: 1789318800 },
          broken: 'not a window',
          percent: { utilization: 91, resetsAt: 1789318800 },
        },
      },
    });
    expect(events(line)).toEqual([
      {
        type: 'rate_limit',
        info: {
          status: 'allowed_warning',
          resetsAt: 1_788_934_800_000,
          rateLimitType: 'five_hour',
          utilization: 0.91,
          overageDisabledReason: 'out_of_credits',
          isUsingOverage: false,
          windows: {
            five_hour: {
              utilization: 0.91,
              resetsAt: 1_788_934_800_000,
              status: 'allowed_warning',
            },
            seven_day: { utilization: 0.24, resetsAt: 1_789_318_800_000, status: undefined },
            // A percentage is not a fraction: unknown, never 91 × the window.
            percent: { utilization: undefined, resetsAt: 1_789_318_800_000, status: undefined },
          },
        },
      },
    ]);
  });

  it("keeps the error of Claude Code's synthetic error message", () => {
    const line = JSON.stringify({
      type: 'assistant',
      message: { model: '<synthetic>', content: [{ type: 'text', text: 'Not logged in' }] },
      error: 'authentication_failed',
    });
    expect(parseStreamLine(line).assistantError).toBe('authentication_failed');
  });

  it('reads an error result whose subtype says success, with keys in any order', () => {
    const line = JSON.stringify({
      duration_ms: 178000,
      usage: { input_tokens: 5, output_tokens: 0 },
      is_error: true,
      api_error_status: 429,
      result: 'API Error: Request rejected (429)',
      session_id: 's-2',
      total_cost_usd: 0,
      num_turns: 1,
      permission_denials: [{ tool_name: 'Write', tool_use_id: 'toolu_5', tool_input: {} }],
      subtype: 'success',
      type: 'result',
    });
    expect(events(line)).toEqual([
      {
        type: 'result',
        summary: {
          subtype: 'success',
          isError: true,
          apiErrorStatus: 429,
          resultText: 'API Error: Request rejected (429)',
          sessionId: 's-2',
          costUsd: 0,
          numTurns: 1,
          usage: {
            inputTokens: 5,
            outputTokens: 0,
            cacheReadInputTokens: 0,
            cacheCreationInputTokens: 0,
          },
          permissionDenials: [{ toolName: 'Write', toolUseId: 'toolu_5' }],
          durationMs: 178000,
        },
      },
    ]);
  });

  it('reads fields of the wrong type as absent instead of dropping the line', () => {
    expect(
      events(
        '{"type":"result","is_error":"yes","num_turns":"3","usage":[],"permission_denials":{}}',
      ),
    ).toEqual([
      {
        type: 'result',
        summary: {
          subtype: undefined,
          isError: false,
          apiErrorStatus: undefined,
          resultText: undefined,
          sessionId: undefined,
          costUsd: undefined,
          numTurns: undefined,
          usage: undefined,
          permissionDenials: [],
          durationMs: undefined,
        },
      },
    ]);
  });

  it('reads a negative cost or a negative or fractional token count as unknown', () => {
    const [event] = events(
      '{"type":"result","total_cost_usd":-0.01,"usage":{"input_tokens":-5,"output_tokens":2.5,"cache_read_input_tokens":7}}',
    );
    expect(event).toMatchObject({
      type: 'result',
      summary: {
        costUsd: undefined,
        usage: {
          inputTokens: 0,
          outputTokens: 0,
          cacheReadInputTokens: 7,
          cacheCreationInputTokens: 0,
        },
      },
    });
  });

  it('keeps other system lines and unknown types as unknown', () => {
    for (const line of [
      '{"type":"system","subtype":"task_notification","task_id":"b0521e8","status":"completed"}',
      '{"type":"stream_event","event":{"type":"content_block_delta"}}',
    ]) {
      expect(events(line)).toEqual([{ type: 'unknown', raw: line }]);
    }
  });
});

describe('epochMs', () => {
  it.each([
    [1_785_322_800, 1_785_322_800_000],
    [1_785_322_800_000, 1_785_322_800_000],
    ['1785322800', 1_785_322_800_000],
    ['2026-07-29T11:00:00Z', Date.parse('2026-07-29T11:00:00Z')],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ] as const)('%j → %j', (input, expected) => {
    expect(epochMs(input)).toBe(expected);
  });
});
