import type { Judge, SimpleCommand } from './analyze.js';
import { shown, valueOf } from './args.js';

/**
 * Commands that reach past the guard or past the project, whatever their arguments: another
 * agent CLI (its tool calls are not routed here; `claude mcp add` installs tools that are not
 * either), publishing a package or a release (a change to the world, not the project), and
 * printing the environment (it holds the credentials of the agent's own CLI). Returns true when
 * the command was refused.
 */

/** Agent CLIs and the npm packages that carry them (npx runs the package's bin). */
const AGENT_CLIS = new Set([
  'claude',
  'claude-code',
  'codex',
  'aider',
  'aider-chat',
  'gemini',
  'gemini-cli',
  'opencode',
  'opencode-ai',
  'goose',
  'amp',
  'cursor-agent',
  'qwen',
  'crush',
  'copilot',
  'cline',
  'plandex',
]);

/** Looking an agent CLI up is harmless: `claude --version`. */
const INFO_ONLY = /^(--version|-v|-V|--help|-h|help|version)$/;

/** `tool sub …` pairs that publish (the sub is the first word that is not an option). */
const PUBLISHING: Readonly<Record<string, readonly string[]>> = {
  npm: ['publish', 'unpublish', 'deprecate'],
  pnpm: ['publish'],
  yarn: ['publish', 'npm publish'],
  bun: ['publish'],
  cargo: ['publish', 'yank', 'owner'],
  twine: ['upload', 'register'],
  poetry: ['publish'],
  flit: ['publish'],
  hatch: ['publish'],
  uv: ['publish'],
  gem: ['push', 'yank', 'owner'],
  gh: ['release create', 'release upload', 'release edit', 'release delete', 'repo delete'],
  glab: ['release create'],
  vsce: ['publish', 'unpublish'],
  ovsx: ['publish'],
  docker: ['push'],
  podman: ['push'],
  mvn: ['deploy'],
  dotnet: ['nuget push'],
};

/** Programs whose whole job is a release: `np`, `release-it`, `semantic-release`, … */
const RELEASERS = new Set(['np', 'release-it', 'semantic-release', 'changeset-publish']);

/** Variables that hold the guard's or a service's credentials: printing one leaks it. */
const SECRET_VARIABLE =
  /\$\{?(RALPH_GUARD_TOKEN|[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*)\b/;

const PRINTERS = new Set(['echo', 'printf', 'print']);

export function judgeReach(command: SimpleCommand, judge: Judge): boolean {
  const { name, args } = command;
  const bare = name.replace(/@[^/]*$/, '');
  if (
    AGENT_CLIS.has(bare) &&
    !(args.length > 0 && args.every((arg) => INFO_ONLY.test(valueOf(arg) ?? '')))
  ) {
    judge.deny(
      'nested-agent',
      `\`${shown(command)}\` starts another agent, whose tool calls no guard checks (and \`claude mcp add\`/\`--settings\` change what this one may do); do the work in this session`,
    );
    return true;
  }
  const words = args
    .map((arg) => valueOf(arg))
    .filter((value): value is string => value !== undefined && !value.startsWith('-'));
  const subs = PUBLISHING[name] ?? [];
  const published = subs.find((sub) => words.slice(0, sub.split(' ').length).join(' ') === sub);
  if (published !== undefined || RELEASERS.has(name)) {
    judge.deny(
      'publish',
      `\`${shown(command)}\` publishes outside the project (a package, a release, an image); leave publishing to a person`,
    );
    return true;
  }
  if (printsEnvironment(command) || (name === 'set' && args.length === 0) || exportsAll(command)) {
    judge.deny(
      'environment',
      `\`${shown(command)}\` prints the environment, which holds the credentials of the agent's own CLI; print the one variable you need`,
    );
    return true;
  }
  const leaked = args.find(
    (arg) =>
      arg.dynamic &&
      SECRET_VARIABLE.test(arg.text) &&
      (PRINTERS.has(name) || arg.text.includes('RALPH_GUARD_TOKEN')),
  );
  if (leaked?.dynamic === true) {
    judge.deny(
      'secret-variable',
      `\`${shown(command)}\` prints \`${leaked.text}\`, a credential; use it without printing it`,
    );
    return true;
  }
  return false;
}

/**
 * `printenv` alone prints every variable; `printenv NAME…` only those named, which is what the
 * deny's own advice asks for, unless one of them is a credential (or its value is unknown).
 */
function printsEnvironment(command: SimpleCommand): boolean {
  if (command.name !== 'printenv') return false;
  const names = command.args.map((arg) => valueOf(arg)).filter((value) => value !== '-0');
  if (names.length === 0) return true;
  return names.some(
    (value) =>
      value === undefined ||
      value.startsWith('-') ||
      SECRET_VARIABLE.test(`$${value}`) ||
      /^(ANTHROPIC|CLAUDE)_/.test(value),
  );
}

/** `export -p`, `export` alone, `declare -x`/`-p` alone: every exported variable. */
function exportsAll(command: SimpleCommand): boolean {
  const { name, args } = command;
  if (name !== 'export' && name !== 'declare' && name !== 'typeset') return false;
  const values = args.map((arg) => valueOf(arg));
  if (name === 'export') return values.length === 0 || values.every((value) => value === '-p');
  return (
    values.length > 0 && values.every((value) => value !== undefined && /^-[xp]+$/.test(value))
  );
}
