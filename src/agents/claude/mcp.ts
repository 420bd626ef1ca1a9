import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { RalphError } from '../../util/errors.js';

/**
 * Per-story MCP servers (prd.json `mcpServers`). Claude Code keeps server definitions in three
 * scopes, and a story that names servers gets exactly those, passed inline with
 * `--mcp-config <json> --strict-mcp-config` so nothing else loads:
 * - local: `~/.claude.json` → `projects[<dir>].mcpServers`, keyed by the project (git root) path;
 * - project: `.mcp.json` in the working directory or a parent (Claude Code reads every parent's);
 * - user: `~/.claude.json` → top-level `mcpServers`.
 * A name is looked up in that order (Claude Code's precedence), the closest directory first.
 * `~` is the request's HOME, or CLAUDE_CONFIG_DIR when set (it then holds `.claude.json`).
 */

type Servers = Record<string, unknown>;

/** The `--mcp-config` JSON for a story, or undefined when the story leaves MCP to the user. */
export function mcpConfigFor(
  names: readonly string[] | undefined,
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (names === undefined) return undefined;
  if (names.length === 0) return JSON.stringify({ mcpServers: {} });
  const scopes = readScopes(resolve(cwd), env);
  const chosen: Servers = {};
  const missing: string[] = [];
  for (const name of names) {
    const found = scopes.find((servers) => Object.hasOwn(servers, name));
    if (found === undefined) missing.push(name);
    else chosen[name] = found[name];
  }
  if (missing.length > 0) {
    const list = missing.map((name) => `"${name}"`).join(', ');
    throw new RalphError(
      'AGENT_CONFIG',
      `MCP server ${list} not found in Claude Code's configuration`,
      {
        hint: `define it with \`claude mcp add\` or in the project's .mcp.json, or remove it from the story's mcpServers (searched: ${searched(cwd, env)})`,
      },
    );
  }
  return JSON.stringify({ mcpServers: chosen });
}

function claudeConfigFile(env: Readonly<Record<string, string | undefined>>): string {
  const configDir = env.CLAUDE_CONFIG_DIR;
  if (configDir !== undefined && configDir !== '') return join(configDir, '.claude.json');
  return join(env.HOME ?? homedir(), '.claude.json');
}

function searched(cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  return `${claudeConfigFile(env)}, .mcp.json in ${resolve(cwd)} and its parents`;
}

/** cwd, its parent, …, the root: the closest first. */
function ancestors(dir: string): string[] {
  const dirs = [dir];
  for (let parent = dirname(dir); parent !== dirs.at(-1); parent = dirname(parent)) {
    dirs.push(parent);
  }
  return dirs;
}

/** Every scope's server definitions, in lookup order. */
function readScopes(cwd: string, env: Readonly<Record<string, string | undefined>>): Servers[] {
  const config = readJsonObject(claudeConfigFile(env));
  const projects = asObject(config?.projects);
  const local: Servers[] = [];
  const project: Servers[] = [];
  for (const dir of ancestors(cwd)) {
    const own = asObject(asObject(projects?.[dir])?.mcpServers);
    if (own !== undefined) local.push(own);
    const shared = asObject(readJsonObject(join(dir, '.mcp.json'))?.mcpServers);
    if (shared !== undefined) project.push(shared);
  }
  const user = asObject(config?.mcpServers);
  return [...local, ...project, ...(user === undefined ? [] : [user])];
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A missing file is no configuration; a broken one is an error a person must fix, not something
 * to skip silently (the story would run without the servers it asked for). Read synchronously:
 * `commandLine()` (--dry-run) is synchronous, and these are small files read once per iteration.
 */
function readJsonObject(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RalphError('AGENT_CONFIG', `cannot read ${file}`, { cause: error });
  }
  try {
    return asObject(JSON.parse(text));
  } catch (error) {
    throw new RalphError('AGENT_CONFIG', `${file} is not valid JSON`, {
      location: { file },
      hint: 'fix the file, or remove mcpServers from the story to use the default MCP config',
      cause: error,
    });
  }
}
