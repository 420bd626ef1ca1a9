import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ParsedRequest } from '../fake-anthropic/conversation.js';
import { bash, reply, write } from '../fake-anthropic/script.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fake-anthropic/server.js';
import type { ScriptResult } from '../fake-anthropic/types.js';
import { PRD, PROGRESS, SPEC } from '../../fixtures/plan-feature.js';
import { runRalph, testEnv } from '../harness.js';
import { claudeEnv, makeSandbox, type Sandbox } from '../real-claude/env.js';
import { runClaude } from '../real-claude/run-claude.js';

/**
 * `ralph setup --commands`, then the real, pinned Claude Code CLI runs `/ralph-plan …` against
 * the fake Messages API. The scripted model acts only on what the conversation shows: the
 * expanded command text (how to call ralph, the workflow), the branch git printed, the issue
 * `gh` printed, and the output of the ralph commands it ran. What it ends with must validate.
 */

const TIMEOUT = 90_000;
const BRANCH = 'feature/42-csv-export';
const ISSUE = {
  title: 'Export data as CSV',
  body: 'Users need their rows in a spreadsheet.\n\n## Acceptance criteria\n- [ ] Export button on the data list\n- [ ] The downloaded file is valid CSV\n',
  labels: [{ name: 'enhancement' }],
};

let fake: FakeAnthropic | undefined;
let box: Sandbox | undefined;

afterEach(async () => {
  await fake?.close();
  box?.cleanup();
  fake = undefined;
  box = undefined;
});

/** The result of the tool call whose command matched, or undefined when it was not made yet. */
function resultOf(request: ParsedRequest, matches: (command: string) => boolean) {
  const use = request.toolUses().findLast((u) => {
    const command = (u.input as { command?: unknown }).command;
    return typeof command === 'string' && matches(command);
  });
  if (use === undefined) return undefined;
  return request.toolResults().find((r) => r.tool_use_id === use.id);
}

function planner(repo: string) {
  return (request: ParsedRequest): ScriptResult => {
    if (request.tools.length === 0) return 'ok';
    const prompt = request.firstUserText();
    // The model knows the command only from its expanded text: how to run ralph included.
    const ralph = /`([^`]+?) sync`/.exec(prompt)?.[1];
    if (!prompt.includes('DISCOVER') || ralph === undefined) {
      return 'I was not given the /ralph-plan instructions.';
    }
    const branch = resultOf(request, (c) => c === 'git branch --show-current');
    if (branch === undefined)
      return reply('DISCOVER: reading the branch.', bash('git branch --show-current'));
    const issueNumber = /\/(\d+)-/.exec(branch.content)?.[1];
    const issue = resultOf(request, (c) => c.startsWith('gh issue view'));
    if (issue === undefined && issueNumber !== undefined) {
      return reply(bash(`gh issue view ${issueNumber} --json title,body,labels`));
    }
    const folder = join(repo, '.ralph', branch.content.trim().replaceAll('/', '-'));
    const details = JSON.parse(issue?.content ?? '{}') as { title?: string; body?: string };
    const criteria = [...(details.body ?? '').matchAll(/^- \[ \] (.*)$/gm)].map((m) => m[1] ?? '');
    const wrote = (name: string) =>
      request
        .toolUses()
        .some((u) => (u.input as { file_path?: string }).file_path === join(folder, name));
    if (!wrote('spec.md')) {
      return reply(
        'DRAFT: writing spec.md from the issue.',
        write(join(folder, 'spec.md'), specFor(details.title ?? 'Feature', criteria)),
      );
    }
    if (!wrote('progress.txt')) {
      return reply(write(join(folder, 'progress.txt'), `# Progress Log: ${details.title ?? ''}\n`));
    }
    const sync = resultOf(request, (c) => c === `${ralph} sync`);
    if (sync === undefined) return reply('GENERATE: deriving prd.json.', bash(`${ralph} sync`));
    const validate = resultOf(request, (c) => c === `${ralph} validate`);
    if (validate === undefined) return reply(bash(`${ralph} validate`));
    if (!wrote('PLAN-REVIEW.md')) {
      const verdict = validate.content.includes('Sync check passed') ? 'READY' : 'NEEDS_REVISION';
      return reply(
        'VERIFY: checking the plan.',
        write(join(folder, 'PLAN-REVIEW.md'), `# Plan review\n\nVerdict: ${verdict}\n`),
      );
    }
    return 'Plan status: READY. Next: ralph run';
  };
}

function specFor(title: string, criteria: string[]): string {
  const bullets = [...criteria, 'Typecheck passes', 'Unit tests pass'].map((c) => `- [ ] ${c}`);
  return [
    '---',
    'created: 2026-01-09T10:00:00Z',
    '---',
    '',
    `# ${title}`,
    '',
    '## Problem Statement',
    '',
    'Issue #42: users need their rows in a spreadsheet.',
    '',
    '## Success Criteria',
    '',
    '- [ ] A CSV export exists',
    '',
    '## User Stories',
    '',
    `### STORY-001: ${title}`,
    '',
    '**As a** user',
    '**I want to** export the data list',
    '',
    '**Acceptance Criteria:**',
    '',
    ...bullets,
    '',
    '## Out of Scope',
    '',
    '- PDF export',
    '',
  ].join('\n');
}

describe('/ralph-plan through the real Claude Code CLI', () => {
  it(
    'is found after ralph setup, and its workflow ends in a spec.md and prd.json that validate',
    async () => {
      box = makeSandbox('ralph-plan-cmd-');
      const { repo, root } = box;
      execFileSync('git', ['checkout', '-q', '-b', BRANCH], { cwd: repo });
      const bin = join(root, 'bin');
      mkdirSync(bin);
      // A stand-in for GitHub's CLI: issue 42 only.
      writeFileSync(
        join(bin, 'gh'),
        `#!/bin/sh\n[ "$1 $2 $3" = "issue view 42" ] || { echo "no such issue" >&2; exit 1; }\ncat <<'JSON'\n${JSON.stringify(ISSUE)}\nJSON\n`,
      );
      chmodSync(join(bin, 'gh'), 0o755);
      fake = await startFakeAnthropic(planner(repo));
      const env = claudeEnv({
        baseUrl: fake.url,
        root,
        extra: { PATH: `${bin}:${process.env.PATH ?? ''}` },
      });

      const setup = await runRalph(['setup', '--commands'], repo, env);
      expect(setup.stderr).toBe('');
      expect(setup.stdout).toContain('/ralph-plan');
      expect(setup.code).toBe(0);

      const run = await runClaude({
        cwd: repo,
        env,
        prompt: '/ralph-plan Add CSV export to the data list --skip-verify',
        timeoutMs: 60_000,
      });
      expect(fake.scriptErrors).toEqual([]);
      expect(run.result?.result, run.stdout.slice(-2000)).toBe(
        'Plan status: READY. Next: ralph run',
      );
      expect(run.code).toBe(0);

      // The model received the command's expanded text with the arguments in place.
      const first = fake.messageRequests().find((r) => r.tools.length > 0);
      expect(first?.firstUserText()).toContain('# /ralph-plan');
      expect(first?.firstUserText()).toContain('Add CSV export to the data list --skip-verify');
      // It acted on the issue gh printed.
      const loop = join(repo, '.ralph', 'feature-42-csv-export');
      const prd = JSON.parse(readFileSync(join(loop, 'prd.json'), 'utf8')) as {
        userStories: { id: string; acceptanceCriteria: string[] }[];
      };
      expect(prd.userStories).toMatchObject([
        {
          id: 'STORY-001',
          acceptanceCriteria: [
            'Export button on the data list',
            'The downloaded file is valid CSV',
            'Typecheck passes',
            'Unit tests pass',
          ],
        },
      ]);
      expect(readFileSync(join(loop, 'PLAN-REVIEW.md'), 'utf8')).toContain('Verdict: READY');

      const validate = await runRalph(['validate'], repo, testEnv(join(root, 'home')));
      expect(validate.stdout).toContain('✓ Sync check passed');
      expect(validate.code, validate.stdout).toBe(0);
    },
    TIMEOUT,
  );

  it(
    '/ralph-amend add: the model reads the status and the command records the amendment',
    async () => {
      box = makeSandbox('ralph-amend-cmd-');
      const { repo, root } = box;
      execFileSync('git', ['checkout', '-q', '-b', 'feature/csv'], { cwd: repo });
      const loop = join(repo, '.ralph', 'feature-csv');
      mkdirSync(loop, { recursive: true });
      writeFileSync(join(loop, 'spec.md'), SPEC);
      writeFileSync(join(loop, 'prd.json'), PRD);
      writeFileSync(join(loop, 'progress.txt'), PROGRESS);
      fake = await startFakeAnthropic((request) => {
        if (request.tools.length === 0) return 'ok';
        const prompt = request.firstUserText();
        const ralph = /`([^`]+?) amend status`/.exec(prompt)?.[1];
        if (!prompt.includes('# /ralph-amend') || ralph === undefined) return 'no instructions';
        const status = resultOf(request, (c) => c === `${ralph} amend status`);
        if (status === undefined) return reply(bash(`${ralph} amend status`));
        const add = resultOf(request, (c) => c.startsWith(`${ralph} amend add`));
        if (add === undefined) {
          // The next id comes from what status printed, not from the script.
          const next = /Next amendment id: (AMD-\d+)/.exec(status.content)?.[1] ?? '?';
          return reply(
            `Recording ${next}.`,
            bash(
              `${ralph} amend add --title 'Export data as CSV' --description 'As a user I want CSV' --criterion 'Export button visible' --criterion 'Typecheck passes' --reason 'reporting'`,
            ),
          );
        }
        return add.content.includes('AMD-001: added STORY-004') ? 'Amended: AMD-001' : 'failed';
      });
      const env = claudeEnv({ baseUrl: fake.url, root });
      expect((await runRalph(['setup'], repo, env)).code).toBe(0);

      const run = await runClaude({
        cwd: repo,
        env,
        prompt: '/ralph-amend add Users need CSV export',
        timeoutMs: 60_000,
      });
      expect(fake.scriptErrors).toEqual([]);
      expect(run.result?.result, run.stdout.slice(-2000)).toBe('Amended: AMD-001');
      const prd = JSON.parse(readFileSync(join(loop, 'prd.json'), 'utf8')) as {
        userStories: { id: string; amendment?: { id: string } }[];
      };
      expect(prd.userStories.at(-1)).toMatchObject({
        id: 'STORY-004',
        amendment: { id: 'AMD-001' },
      });
      const validate = await runRalph(['validate'], repo, testEnv(join(root, 'home')));
      expect(validate.code, validate.stdout).toBe(0);
    },
    TIMEOUT,
  );
});
