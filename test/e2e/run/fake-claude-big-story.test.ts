import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story } from './fake-loop.js';

/**
 * Issue 14, item 1: a story far over Linux's 128 KiB limit for one argument. ralph used to put
 * the prompt in argv, so every attempt failed with E2BIG while validate said "Ready to run".
 * Now the prompt goes to the agent's stdin; the fake claude only marks the story passing when
 * the whole prompt reached it there (prompt-N.txt is its stdin).
 */

const END = 'END-OF-THE-200-KIB-STORY';
const BIG = `${'The importer must accept this row shape and keep every field exactly. '.repeat(2950)}${END}`;

describe('ralph run with a 200 KiB story and the fake claude', () => {
  it('validate and --dry-run warn that the prompt is over the budget; the run sends it on stdin', async () => {
    expect(Buffer.byteLength(BIG)).toBeGreaterThan(200 * 1024);
    const stories = [story(1, { description: BIG })];
    const loop = await createFakeLoop(stories);
    const done = join(loop.scripts, 'task-list-done.json');
    await writeFile(done, prdText(passing(stories, 'STORY-001')));
    await loop.agent(1, {
      sh: `if grep -q '${END}' "$FAKE_CLAUDE_SCRIPT_DIR/prompt-1.txt"; then cp '${done}' '${loop.prdFile}'; fi`,
      jsonl: finishedRun('s-big', 'Imported. <promise>COMPLETE</promise>'),
    });

    const validate = await loop.run(['validate', '--json']);
    expect(validate.code, validate.stderr).toBe(0);
    const report = JSON.parse(validate.stdout) as {
      checks: { name: string; status: string; message: string }[];
    };
    const prompt = report.checks.find((check) => check.name === 'prompt');
    expect(prompt?.status).toBe('warn');
    expect(prompt?.message).toMatch(
      /^prompt for STORY-001: \d+ bytes, ≈ \d+ tokens of the 16000-token budget \(context\.tokenBudget\): OVER it$/,
    );

    const dry = await loop.run(['run', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/Prompt: +\d{6} bytes, ≈ 5\d{4} tokens of the 16000-token budget/);
    expect(dry.stderr).toMatch(
      /warning: the prompt for STORY-001 is ≈ 5\d{4} tokens, over context.tokenBudget \(16000\)/,
    );
    // The command line stays small: the story is not in it.
    const command = dry.stdout.split('\n').find((line) => line.startsWith('Command:')) ?? '';
    expect(command.length).toBeLessThan(2000);

    const run = await loop.run(['run', '-n', '1', '--pause', '0', '--no-archive']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('COMPLETE — every story passes');
    const call = await loop.argv(1);
    expect(call.prompt).toContain(BIG);
    expect(call.argv.join(' ')).not.toContain('importer');
    expect(ofType(await loop.events(), 'warning').map((each) => each.message)).toContainEqual(
      expect.stringMatching(
        /^the prompt for STORY-001 is ≈ 5\d{4} tokens, over context.tokenBudget/,
      ),
    );
    expect(JSON.parse(await readFile(loop.prdFile, 'utf8'))).toMatchObject({
      userStories: [{ id: 'STORY-001', passes: true }],
    });
  });
});
