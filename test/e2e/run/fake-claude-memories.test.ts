import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finishedRun } from './agent-stream.js';
import { createFakeLoop, ofType, passing, prdText, story, type FakeLoop } from './fake-loop.js';

/**
 * Memories in a real `ralph run` with the fake claude: the project's and the feature's
 * memories.md reach the prompt filtered by the story's tags, an entry the agent appends is
 * normalised after its iteration and reaches the next prompt, and memory.injection turns it off.
 */

// A story's memory tags: a task-list field StoryInput does not name.
const STORIES = [Object.assign(story(1), { tags: ['auth'] }), story(2)];
const PROJECT = [
  '# Memories',
  '',
  '## Patterns',
  '- [2026-01-01T00:00:00Z] [tags: auth] Validate tokens on the server',
  '- [2026-01-02T00:00:00Z] [tags: ui] Buttons use the shared Button component',
  '',
].join('\n');
const FEATURE =
  '# Memories\n\n## Fixes\n\n- [2026-01-03T00:00:00Z] [tags: auth,db] Sessions table needs an index\n';

async function promptOf(loop: FakeLoop, call: number): Promise<string> {
  return (await loop.argv(call)).prompt;
}

async function memoryLoop(): Promise<FakeLoop> {
  const loop = await createFakeLoop(STORIES);
  await mkdir(join(loop.repo, '.ralph'), { recursive: true });
  await writeFile(join(loop.repo, '.ralph', 'memories.md'), PROJECT);
  await writeFile(join(loop.dir, 'memories.md'), FEATURE);
  await loop.agent(1, {
    taskList: prdText(passing(STORIES, 'STORY-001')),
    // What an agent plausibly appends: no date, tags in its own spelling.
    sh: `printf '%s\\n' '* [Tags: Auth, Cache] Cache the JWKS for an hour' >> '${join(loop.dir, 'memories.md')}'`,
    jsonl: finishedRun('s1', 'ok', 0.01),
  });
  await loop.agent(2, {
    taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002')),
    jsonl: finishedRun('s2', '<promise>COMPLETE</promise>', 0.01),
  });
  return loop;
}

describe('memories in ralph run', () => {
  it('gives each story the memories its tags match and keeps what the agent learned', async () => {
    const loop = await memoryLoop();
    const run = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(run.code, run.stderr).toBe(0);

    const first = await promptOf(loop, 1);
    expect(first).toContain('## Memories');
    expect(first).toContain('for the tags auth');
    expect(first).toContain('- [tags: auth] Validate tokens on the server (project)');
    expect(first).toContain('- [tags: auth,db] Sessions table needs an index');
    expect(first).not.toContain('Button component');

    const text = await readFile(join(loop.dir, 'memories.md'), 'utf8');
    expect(text.startsWith(FEATURE)).toBe(true);
    expect(text.slice(FEATURE.length)).toMatch(
      /^- \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] \[tags: auth,cache\] Cache the JWKS for an hour\n$/,
    );
    // STORY-002 has no tags: every memory, the one learned in iteration 1 included.
    const second = await promptOf(loop, 2);
    expect(second).toContain('Button component');
    expect(second).toContain('Cache the JWKS for an hour');
    expect(await readFile(join(loop.repo, '.ralph', 'memories.md'), 'utf8')).toBe(PROJECT);
  });

  it('memory.injection none (RALPH_MEMORY_INJECTION) leaves memories out of the prompt', async () => {
    const loop = await memoryLoop();
    const run = await loop.run(['run', '--pause', '0', '--no-archive'], {
      ...loop.env,
      RALPH_MEMORY_INJECTION: 'none',
    });
    expect(run.code, run.stderr).toBe(0);
    const prompt = await promptOf(loop, 1);
    expect(prompt).toContain('Work on **STORY-001');
    expect(prompt).not.toContain('Memories');
  });

  it('a memories.md it cannot parse is a warning, and the file is left as it is', async () => {
    const loop = await memoryLoop();
    const broken = `${FEATURE}## Gotchas\n- unplaceable\n`;
    await writeFile(join(loop.dir, 'memories.md'), broken);
    const run = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(run.code, run.stderr).toBe(0);
    const warnings = ofType(await loop.events(), 'warning').map((each) => String(each.message));
    expect(warnings.join('\n')).toMatch(/memories\.md:6: "## Gotchas" is not a memory category/);
    expect(await readFile(join(loop.dir, 'memories.md'), 'utf8')).toBe(
      `${broken}* [Tags: Auth, Cache] Cache the JWKS for an hour\n`,
    );
  });
});
