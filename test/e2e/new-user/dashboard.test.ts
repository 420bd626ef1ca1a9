import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterEach, expect, it } from 'vitest';
import { describeNeeding, inCi } from '../../requirements.js';
import { finishedRun } from '../run/agent-stream.js';
import {
  createFakeLoop,
  passing,
  prdText,
  story,
  waitFor,
  type RunningRalph,
} from '../run/fake-loop.js';

/**
 * The dashboard as a new user met it: on a phone (360 px) it overflowed the screen, broke loop
 * names mid-word, and without JavaScript it showed nothing at all.
 */
const CHROMIUM = process.env.RALPH_CHROMIUM ?? '/usr/bin/chromium';
const started: RunningRalph[] = [];
const browsers: BrowserContext[] = [];
afterEach(async () => {
  for (const browser of browsers.splice(0)) await browser.close();
  for (const each of started.splice(0)) {
    try {
      process.kill(each.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

const CHROMIUM_NEEDED = {
  what: `chromium at ${CHROMIUM}`,
  present: existsSync(CHROMIUM),
  required: inCi(),
  hint: "install Debian's chromium (.ci/run does) or set RALPH_CHROMIUM; under CI=true it fails",
};

async function phone(javaScriptEnabled: boolean): Promise<Page> {
  const browser = await chromium.launchPersistentContext(
    await mkdtemp(join(tmpdir(), 'ralph-chromium-')),
    {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 360, height: 740 },
      javaScriptEnabled,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    },
  );
  browsers.push(browser);
  return browser.pages()[0] ?? (await browser.newPage());
}

const STORIES = [story(1)];

describeNeeding(CHROMIUM_NEEDED, 'the dashboard on a phone, with and without JavaScript', () => {
  it('fits 360 px, keeps loop names whole, renders without JavaScript, and reads well', async () => {
    const loop = await createFakeLoop(STORIES);
    await loop.agent(1, {
      taskList: prdText(passing(STORIES, 'STORY-001')),
      jsonl: finishedRun('s-one', 'done <promise>COMPLETE</promise>', 0.0125),
    });
    const run = await loop.run(['run', '--pause', '0', '--no-archive']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const web = loop.start(['monitor', '--web', '--port', '0']);
    started.push(web);
    await waitFor('the dashboard', () => /dashboard at (http:\S+)/.test(web.stdout()), 10_000);
    const url = /dashboard at (http:\S+)/.exec(web.stdout())?.[1] ?? '';
    const width = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

    // No JavaScript: the server's HTML already holds the figures and the stories.
    const plain = await phone(false);
    await plain.goto(url);
    expect(await plain.textContent('#stat-state')).toBe('COMPLETE');
    expect(await plain.textContent('#stat-iteration')).toBe('1/20');
    expect(await plain.textContent('#stat-stories')).toBe('1/1');
    expect(await plain.textContent('#stat-cost')).toBe('$0.0125');
    expect(await plain.locator('#stories tbody tr').count()).toBe(1);
    expect(await plain.locator('#loops a').textContent()).toContain('.ralph/feature-fake-loop');
    expect(await width(plain)).toBeLessThanOrEqual(360);

    // With JavaScript, live: still within the screen; events read as sentences, not dumps.
    const live = await phone(true);
    await live.goto(url);
    await live.locator('#connection', { hasText: /^live$/ }).waitFor();
    await live.locator('#events li', { hasText: 'agent started' }).first().waitFor();
    const events = await live.locator('#events li span').allTextContents();
    expect(events.filter((line) => /agent_started|^\w+_\w+ \w+=/.test(line))).toEqual([]);
    expect(await width(live)).toBeLessThanOrEqual(360);
    const wordBreak = await live
      .locator('#loops a span')
      .first()
      .evaluate('(node) => getComputedStyle(node).wordBreak');
    expect(wordBreak).not.toBe('break-all');

    const validate = await loop.run(['validate']);
    expect(validate.stdout).toContain('1 story, 1 passing');
  }, 60_000);
});
