import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RalphError } from '../../util/errors.js';
import { mcpConfigFor } from './mcp.js';

let root: string;
let repo: string;
let sub: string;
let env: Record<string, string>;

const stdio = (name: string) => ({ type: 'stdio', command: 'echo', args: [name] });

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'ralph-mcp-'));
  repo = join(root, 'repo');
  sub = join(repo, 'packages', 'web');
  await mkdir(sub, { recursive: true });
  await mkdir(join(root, 'home'));
  env = { HOME: join(root, 'home') };
  // The shapes `claude mcp add -s user|local|project` write (measured on 2.1.330).
  await writeFile(
    join(root, 'home', '.claude.json'),
    JSON.stringify({
      mcpServers: { github: stdio('user-github'), shared: stdio('user-shared') },
      projects: {
        [repo]: { mcpServers: { shared: stdio('local-shared'), db: stdio('local-db') } },
      },
    }),
  );
  await writeFile(
    join(repo, '.mcp.json'),
    JSON.stringify({ mcpServers: { playwright: stdio('repo-playwright'), db: stdio('repo-db') } }),
  );
  await writeFile(
    join(sub, '.mcp.json'),
    JSON.stringify({ mcpServers: { playwright: stdio('sub-playwright') } }),
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const parsed = (names: string[] | undefined, cwd = sub, withEnv = env) => {
  const json = mcpConfigFor(names, cwd, withEnv);
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
};

describe('mcpConfigFor', () => {
  it('leaves MCP to the user when the story says nothing, and allows none for []', () => {
    expect(mcpConfigFor(undefined, sub, env)).toBeUndefined();
    expect(mcpConfigFor([], sub, env)).toBe('{"mcpServers":{}}');
  });

  it('passes only the named servers, local scope before project before user', () => {
    expect(parsed(['shared', 'db', 'playwright', 'github'])).toEqual({
      mcpServers: {
        shared: stdio('local-shared'),
        db: stdio('local-db'),
        playwright: stdio('sub-playwright'),
        github: stdio('user-github'),
      },
    });
    expect(parsed(['playwright'], repo)).toEqual({
      mcpServers: { playwright: stdio('repo-playwright') },
    });
  });

  it('reads .claude.json from CLAUDE_CONFIG_DIR when it is set', async () => {
    const configDir = join(root, 'config');
    await mkdir(configDir, { recursive: true });
    await writeFile(
      join(configDir, '.claude.json'),
      JSON.stringify({ mcpServers: { github: stdio('cfg-github') } }),
    );
    expect(parsed(['github'], sub, { ...env, CLAUDE_CONFIG_DIR: configDir })).toEqual({
      mcpServers: { github: stdio('cfg-github') },
    });
  });

  it('names the servers it cannot find', () => {
    let caught: unknown;
    try {
      mcpConfigFor(['github', 'nope', 'gone'], sub, env);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RalphError);
    expect(caught).toMatchObject({ code: 'AGENT_CONFIG', exitCode: 2 });
    expect((caught as RalphError).message).toBe(
      'MCP server "nope", "gone" not found in Claude Code\'s configuration',
    );
    expect((caught as RalphError).hint).toContain(join(root, 'home', '.claude.json'));
  });

  it('reports a broken .mcp.json instead of running without the servers', async () => {
    const broken = join(root, 'broken');
    await mkdir(broken);
    await writeFile(join(broken, '.mcp.json'), '{"mcpServers": {');
    expect(() => mcpConfigFor(['x'], broken, env)).toThrow(/\.mcp\.json is not valid JSON/);
    expect(() => mcpConfigFor(undefined, broken, env)).not.toThrow();
  });

  it('works without any configuration file when no names are asked for', () => {
    expect(mcpConfigFor([], join(root, 'nowhere'), { HOME: join(root, 'nowhere') })).toBe(
      '{"mcpServers":{}}',
    );
  });
});
