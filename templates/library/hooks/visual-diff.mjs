#!/usr/bin/env node
// visual-diff: screenshots pages of a running app and compares each with its baseline, pixel by
// pixel, in the browser itself (two canvases), so no image library is needed.
//
//   node visual-diff.mjs CONFIG.json LOOP_DIR
//
// CONFIG: baseUrl, pages (paths), viewport {width, height}, threshold (the share of pixels that
// may differ, 0.001 = 0.1 %), baselineDir and currentDir (relative to LOOP_DIR). A page without a baseline gets one. playwright-core is loaded from the
// project (the current directory); the browser is CHROMIUM_PATH, /usr/bin/chromium or
// playwright's own. Without either: a message on stderr and exit 0 (skipped).
// stdout: one JSON report; stderr: a summary. Exit 1 when a page differs beyond the threshold.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const configFile = resolve(process.argv[2] ?? 'visual-diff.json');
const skip = (reason) => {
  process.stderr.write(`visual-diff: skipped: ${reason}\n`);
  process.stdout.write(`${JSON.stringify({ audit: 'visual-diff', summary: { status: 'skipped', reason } })}\n`);
  process.exit(0);
};
if (!existsSync(configFile)) skip(`no config at ${configFile}`);
const config = JSON.parse(readFileSync(configFile, 'utf8'));
const loopDir = resolve(process.argv[3] ?? dirname(dirname(dirname(configFile))));
const baselineDir = resolve(loopDir, config.baselineDir ?? 'visual-baseline');
const currentDir = resolve(loopDir, config.currentDir ?? 'visual-current');
const threshold = config.threshold ?? 0.001;

let playwright;
try {
  const require = createRequire(join(process.cwd(), 'package.json'));
  playwright = await import(pathToFileURL(require.resolve('playwright-core')).href);
} catch {
  skip('playwright-core is not installed in this project (npm install --save-dev playwright-core)');
}
const chromium = playwright.chromium ?? playwright.default?.chromium;
const executablePath = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  .find((path) => path !== undefined && path !== '' && existsSync(path));
let browser;
try {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
} catch (error) {
  skip(`no Chromium could be started (${String(error.message).split('\n')[0]}); set CHROMIUM_PATH`);
}

const slug = (path) => (path.replace(/^\/+|\/+$/g, '').replace(/[^\w.-]+/g, '_') || 'index');
mkdirSync(baselineDir, { recursive: true });
mkdirSync(currentDir, { recursive: true });
// The latest screenshots change every iteration: kept out of the agent's `git add -A`.
writeFileSync(join(currentDir, '.gitignore'), '*\n');
const results = [];
try {
  const page = await browser.newPage({ viewport: config.viewport ?? { width: 1280, height: 800 } });
  for (const path of config.pages ?? ['/']) {
    const name = `${slug(path)}.png`;
    try {
      await page.goto(new URL(path, config.baseUrl).href, { waitUntil: 'load', timeout: 15000 });
      const shot = await page.screenshot({ fullPage: true });
      writeFileSync(join(currentDir, name), shot);
      const baseline = join(baselineDir, name);
      if (!existsSync(baseline)) {
        writeFileSync(baseline, shot);
        results.push({ page: path, status: 'baseline-created', baseline });
        continue;
      }
      const diff = await compare(page, readFileSync(baseline), shot);
      const share = diff.total === 0 ? 0 : diff.different / diff.total;
      results.push({
        page: path,
        status: diff.sizeChanged || share > threshold ? 'changed' : 'same',
        different_pixels: diff.different,
        total_pixels: diff.total,
        share: Number(share.toFixed(6)),
        size_changed: diff.sizeChanged,
      });
    } catch (error) {
      results.push({ page: path, status: 'error', error: String(error.message).split('\n')[0] });
    }
  }
} finally {
  await browser.close();
}

/** Decodes both PNGs in a blank page and counts the pixels that differ. */
async function compare(page, before, after) {
  await page.goto('about:blank');
  return page.evaluate(
    async ([a, b]) => {
      const load = async (base64) => {
        const image = new Image();
        image.src = `data:image/png;base64,${base64}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        return context.getImageData(0, 0, image.width, image.height);
      };
      const [x, y] = [await load(a), await load(b)];
      const sizeChanged = x.width !== y.width || x.height !== y.height;
      const width = Math.min(x.width, y.width);
      const height = Math.min(x.height, y.height);
      let different = 0;
      for (let row = 0; row < height; row += 1) {
        for (let column = 0; column < width; column += 1) {
          const i = (row * x.width + column) * 4;
          const j = (row * y.width + column) * 4;
          if (x.data[i] !== y.data[j] || x.data[i + 1] !== y.data[j + 1] || x.data[i + 2] !== y.data[j + 2]) {
            different += 1;
          }
        }
      }
      return { different, total: Math.max(x.width * x.height, y.width * y.height), sizeChanged };
    },
    [before.toString('base64'), after.toString('base64')],
  );
}

const changed = results.filter((each) => each.status === 'changed' || each.status === 'error');
const report = {
  audit: 'visual-diff',
  summary: {
    pages: results.length,
    same: results.filter((each) => each.status === 'same').length,
    changed: results.filter((each) => each.status === 'changed').length,
    baselines_created: results.filter((each) => each.status === 'baseline-created').length,
    errors: results.filter((each) => each.status === 'error').length,
    status: changed.length === 0 ? 'pass' : 'fail',
  },
  results,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
process.stderr.write(
  `visual-diff: ${report.summary.same} same, ${report.summary.changed} changed, ` +
    `${report.summary.baselines_created} new baselines, ${report.summary.errors} errors` +
    changed.map((each) => `\n  ${each.page}: ${each.status}${each.share === undefined ? '' : ` (${(each.share * 100).toFixed(2)} % of pixels)`}${each.error ? ` ${each.error}` : ''}`).join('') +
    '\n',
);
process.exitCode = changed.length === 0 ? 0 : 1;
