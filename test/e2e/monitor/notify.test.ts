import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { finishedRun } from '../run/agent-stream.js';
import { createFakeLoop, passing, prdText, story } from '../run/fake-loop.js';

describe('notifications from a real run', () => {
  it('posts a Slack-compatible message to notify.webhook (RALPH_NOTIFY_WEBHOOK) when the loop completes', async () => {
    const bodies: unknown[] = [];
    const server = createServer((request, response) => {
      let text = '';
      request.on('data', (chunk: Buffer) => (text += chunk.toString()));
      request.on('end', () => {
        bodies.push(JSON.parse(text));
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const stories = [story(1)];
      const loop = await createFakeLoop(stories);
      await loop.agent(1, {
        taskList: prdText(passing(stories, 'STORY-001')),
        jsonl: finishedRun('s1', 'done <promise>COMPLETE</promise>', 0.02),
      });
      const result = await loop.run(['run', '--pause', '0', '--no-archive'], {
        ...loop.env,
        RALPH_NOTIFY_WEBHOOK: hook,
        RALPH_NOTIFY_DESKTOP: 'false',
      });
      expect(result.code).toBe(0);
      expect(bodies).toEqual([
        {
          text: '*ralph: feature/fake-loop: complete*\nevery story passes — 1/1 stories passing after 1 iteration, $0.0200',
          ralph: { event: 'complete', feature: 'feature/fake-loop', loopDir: loop.dir },
        },
      ]);
    } finally {
      server.close();
    }
  });

  it('a dead webhook neither fails nor holds up the run', async () => {
    const stories = [story(1)];
    const loop = await createFakeLoop(stories);
    await loop.agent(1, {
      taskList: prdText(passing(stories, 'STORY-001')),
      jsonl: finishedRun('s1', 'ok'),
    });
    const started = Date.now();
    const result = await loop.run(['run', '--pause', '0', '--no-archive'], {
      ...loop.env,
      RALPH_NOTIFY_WEBHOOK: 'http://127.0.0.1:9/nothing-listens-here',
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('ralph: warning: notification webhook failed');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
