import { describe, expect, it } from 'vitest';
import { decideStop, needsTranscript, type SessionLoopEntry } from './decide.js';
import { serialiseSessionLoopFile, type SessionLoopFile } from './state-file.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function entry(file: Partial<SessionLoopFile['state']> = {}, body = 'prompt'): SessionLoopEntry {
  const state = {
    loop_id: 'abc12345',
    session_id: '',
    active: true,
    iteration: 1,
    max_iterations: 5,
    completion_promise: 'DONE',
    started_at: '2026-03-01T00:00:00.000Z',
    ...file,
  };
  const loop = { state, body };
  return {
    kind: 'loop',
    id: state.loop_id,
    path: `/p/.claude/ralph-loop-${state.loop_id}.local.md`,
    journalPath: `/p/.claude/ralph-journal-${state.loop_id}.md`,
    raw: serialiseSessionLoopFile(loop),
    file: loop,
  };
}

describe('decideStop (pure)', () => {
  it('claims, blocks and lists the writes: state first, then the journal', () => {
    const decision = decideStop(
      { session_id: 's1', transcript_path: '/t.jsonl', last_assistant_message: 'hi' },
      [entry()],
      NOW,
      { backstopIterations: 500 },
    );
    expect(decision.outcome).toBe('blocked');
    expect(decision.output).toEqual({
      decision: 'block',
      reason: 'prompt',
      systemMessage:
        'ralph loop abc12345: iteration 2 of 5, journal .claude/ralph-journal-abc12345.md; to stop, output <promise>DONE</promise> only when it is true',
    });
    expect(decision.writes.map((write) => write.kind)).toEqual(['state', 'journal']);
    const [state] = decision.writes;
    expect(state?.kind === 'state' && state.content).toContain('session_id: "s1"');
    expect(state?.kind === 'state' && state.content).toContain(
      `claimed_at: "${NOW.toISOString()}"`,
    );
    expect(state?.kind === 'state' && state.content).toContain('transcript_path: "/t.jsonl"');
  });

  it('does nothing at all without loops', () => {
    expect(decideStop({ session_id: 's1' }, [], NOW, { backstopIterations: 500 })).toEqual({
      outcome: 'none',
      loopId: undefined,
      output: undefined,
      writes: [],
      warnings: [],
    });
  });

  it('asks for the transcript only when a loop of this session could end', () => {
    const other = entry({ session_id: 's2' });
    expect(needsTranscript({ session_id: 's1' }, [other])).toBe(false);
    expect(needsTranscript({ session_id: 's1' }, [entry()])).toBe(true);
    expect(needsTranscript({ session_id: 's1', last_assistant_message: '' }, [entry()])).toBe(
      false,
    );
  });

  it('uses the transcript text when the message is absent', () => {
    const decision = decideStop(
      { session_id: 's1' },
      [entry({ session_id: 's1' })],
      NOW,
      { backstopIterations: 500 },
      'x <promise>DONE</promise>',
    );
    expect(decision.outcome).toBe('completed');
  });
});
