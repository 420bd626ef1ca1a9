import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { describeNeeding, inCi } from '../../requirements.js';
import { finishedRun, initLine } from '../run/agent-stream.js';
import {
  createFakeLoop,
  passing,
  prdText,
  story,
  waitFor,
  type RunningRalph,
} from '../run/fake-loop.js';

/**
 * The web dashboard in a real browser: Debian's chromium (.ci/run installs it) driven by
 * playwright-core, against `ralph monitor --web` while a fake-agent loop runs in another
 * process. Screenshots are saved in the test's temp folder (the path is printed).
 */
const CHROMIUM = process.env.RALPH_CHROMIUM ?? '/usr/bin/chromium';

const started: RunningRalph[] = [];
let browser: BrowserContext | undefined;
afterEach(async () => {
  await browser?.close();
  browser = undefined;
  for (const each of started.splice(0)) {
    try {
      process.kill(each.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const STORIES = [story(1), story(2), story(3)];

const CHROMIUM_NEEDED = {
  what: `chromium at ${CHROMIUM}`,
  present: existsSync(CHROMIUM),
  required: inCi(),
  hint: "install Debian's chromium (.ci/run does) or set RALPH_CHROMIUM; under CI=true it fails",
};

describeNeeding(CHROMIUM_NEEDED, 'web dashboard in chromium', () => {
  it('follows a running loop live, agrees with status.json, and opens an iteration log', async () => {
    const loop = await createFakeLoop(STORIES);
    await loop.agent(1, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('s-one', 'ok', 0.0125),
    });
    // The second call holds until the page is open, so what follows can only arrive live.
    const secondList = join(loop.scripts, 'after-2.json');
    await writeFile(secondList, prdText(passing(STORIES, 'STORY-001', 'STORY-002')));
    await loop.agent(2, {
      sh: [
        `printf '%s\\n' '${initLine('s-two')}'`,
        'while [ ! -f "$FAKE_CLAUDE_SCRIPT_DIR/go" ]; do sleep 0.02; done',
        `cp '${secondList}' '${loop.prdFile}'`,
      ].join('\n'),
      jsonl: finishedRun('s-two', 'ok', 0.0375),
    });
    await loop.agent(3, {
      taskList: prdText(passing(STORIES, 'STORY-001', 'STORY-002', 'STORY-003')),
      jsonl: finishedRun('s-three', 'all done <promise>COMPLETE</promise>', 0.05),
    });
    const run = loop.start(['run', '--pause', '0', '--no-archive']);
    started.push(run);
    await waitFor('the second call', () => existsSync(join(loop.scripts, 'argv-2.json')), 15_000);

    const web = loop.start(['monitor', '--web', '--port', '0']);
    started.push(web);
    await waitFor('the dashboard', () => /dashboard at (http:\S+)/.test(web.stdout()), 10_000);
    const url = /dashboard at (http:\S+)/.exec(web.stdout())?.[1] ?? '';

    const profile = await mkdtemp(join(tmpdir(), 'ralph-chromium-'));
    // A fresh profile per run: playwright passes it as --user-data-dir.
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(url);
    // Playwright's locators, not page.waitForFunction: the page's CSP forbids eval, rightly.
    const state = (text: string) =>
      page.locator('#stat-state', { hasText: new RegExp(`^${text}$`) });
    await state('RUNNING').waitFor();
    expect(await page.textContent('#stat-iteration')).toBe('2/20');
    // The first HTML is the server's ("as of page load"); the live feed connects after it.
    // (A locator, not waitForFunction: the page's CSP forbids evaluating a string.)
    await page
      .locator('#connection')
      .filter({ hasText: /^live$/ })
      .waitFor({ timeout: 10_000 });
    expect(await page.locator('#loops a.selected').textContent()).toContain(
      '.ralph/feature-fake-loop',
    );
    expect(
      await page.locator('#stories tbody tr[data-story="STORY-002"] td').nth(1).textContent(),
    ).toBe('working');

    const released = Date.now();
    await writeFile(join(loop.scripts, 'go'), '');
    await state('COMPLETE').waitFor({ timeout: 15_000 });
    console.log(
      `browser: COMPLETE on the page ${Date.now() - released} ms after the agent was released`,
    );
    expect((await run.exited).code).toBe(0);

    // The numbers on the page are the ones in status.json.
    const status = await loop.status();
    expect(status.state).toBe('COMPLETE');
    expect(await page.textContent('#stat-state')).toBe(status.state);
    expect(await page.textContent('#stat-iteration')).toBe(
      `${status.iteration}/${status.maxIterations}`,
    );
    expect(await page.textContent('#stat-stories')).toBe(
      `${status.storiesPassing}/${status.storiesTotal}`,
    );
    expect(Number(await page.getAttribute('#stat-cost', 'data-value'))).toBeCloseTo(
      status.costUsd,
      9,
    );
    expect(await page.textContent('#stat-cost')).toBe(`$${status.costUsd.toFixed(4)}`);

    // The story table: status, attempts, time and cost per story.
    const rows = page.locator('#stories tbody tr');
    expect(await rows.count()).toBe(3);
    const costs = ['$0.0125', '$0.0375', '$0.0500'];
    for (const [i, id] of ['STORY-001', 'STORY-002', 'STORY-003'].entries()) {
      const cells = page.locator(`#stories tbody tr[data-story="${id}"] td`);
      expect(await cells.nth(1).textContent()).toBe('passing');
      // How ralph knows it is done: here no checks are configured, and the table says so.
      expect(await cells.nth(0).locator('.verification').textContent()).toBe(
        `accepted in iteration ${i + 1} without checks`,
      );
      expect(await cells.nth(2).textContent()).toBe('1');
      expect(await cells.nth(3).textContent()).toMatch(/^\d+s$/);
      expect(await cells.nth(4).textContent()).toBe(costs[i]);
    }
    // The timeline: one bar per iteration, each a link to its log.
    expect(await page.locator('#chart svg a.bar').count()).toBe(3);
    expect(await page.locator('#events li').count()).toBeGreaterThan(5);

    const shots = await mkdtemp(join(tmpdir(), 'ralph-dashboard-'));
    const dashboardShot = join(shots, 'dashboard.png');
    await page.screenshot({ path: dashboardShot, fullPage: true });

    // One click from the dashboard to an iteration's log.
    await page.locator('#chart svg a.bar[data-iteration="2"]').click();
    await page.waitForSelector('#log');
    expect(await page.textContent('#log-title')).toBe('.ralph/feature-fake-loop: iteration 2');
    const log = (await page.textContent('#log')) ?? '';
    expect(log).toContain('● session s-two');
    expect(log).toContain('→ Bash npm test');
    expect(log).toContain('■ result: success');
    expect(log).toBe(
      (await loop.run(['logs', '--iteration', '2'])).stdout
        .split('\n')
        .slice(1)
        .join('\n')
        .trimEnd(),
    );
    const logShot = join(shots, 'log.png');
    await page.screenshot({ path: logShot, fullPage: true });
    await page.click('#back');
    await state('COMPLETE').waitFor();
    console.log(`browser: screenshots ${dashboardShot} ${logShot}`);
    expect((await readFile(dashboardShot)).subarray(1, 4).toString()).toBe('PNG');
  }, 60_000);
});
