import { flag, list, choice, section, wholeNumber } from './config-setting.js';
import { GUARD_DEFAULTS, GUARD_TIME_BUDGET_MS, NETWORK_POLICIES } from './guard-defaults.js';

/**
 * The `guard` section of config.yaml: the policy of ralph's PreToolUse guard (src/guard). The
 * built-in rules need no configuration — privilege escalation, system administration, writes
 * and deletes outside the project, secrets, code piped into interpreters, commands known only
 * at run time are denied whatever is set here; these keys add to them or make exceptions. A
 * loop directory's own config.yaml may carry a `guard` section too: it overrides the project's
 * for runs of that loop (lists replace, they do not add up). Only `enabled` is defaulted by the
 * resolved config; src/guard/policy.ts fills in the rest from GUARD_DEFAULTS.
 */

const BY_POLICY = 'src/guard/policy.ts';

const commands = (what: string, defaults: readonly string[]) =>
  list({
    description: `Command names (the word after any wrapper) ${what}.`,
    requirement: 'a list of command names',
    default: [...defaults],
    defaultIn: BY_POLICY,
  });

const patterns = (what: string, defaults: readonly string[]) =>
  list({
    description: `Patterns over a whole simple command, \`name arg1 arg2\`, with * matching anything (e.g. "git push --force*"), ${what}.`,
    requirement: 'a list of patterns such as "git push --force*"',
    default: [...defaults],
    defaultIn: BY_POLICY,
  });

export const GUARD_SETTINGS = section(
  "The guard: ralph's PreToolUse policy for the agent's tool calls.",
  {
    enabled: flag({
      description:
        '`ralph run` installs the guard as a PreToolUse hook of every iteration. Turn off only inside a sandbox.',
      default: true,
    }),
    network: choice(NETWORK_POLICIES, {
      description:
        'curl, wget, ssh, nc and friends: allow, ask (denied in unattended runs) or deny. Whatever is set, a download is never run by piping it into a shell.',
      default: GUARD_DEFAULTS.network,
      defaultIn: BY_POLICY,
    }),
    allowCommands: commands(
      'allowed even where a built-in rule denies the command itself (sudo, systemctl, …); path and secret rules still apply',
      GUARD_DEFAULTS.allowCommands,
    ),
    askCommands: commands(
      'that need a person (denied in unattended runs)',
      GUARD_DEFAULTS.askCommands,
    ),
    denyCommands: commands('always denied', GUARD_DEFAULTS.denyCommands),
    allowPatterns: patterns(
      'allowed outright: checked first, so they override every other rule',
      GUARD_DEFAULTS.allowPatterns,
    ),
    askPatterns: patterns(
      'that need a person (denied in unattended runs)',
      GUARD_DEFAULTS.askPatterns,
    ),
    denyPatterns: patterns('denied', GUARD_DEFAULTS.denyPatterns),
    writablePaths: list({
      description:
        'Folders outside the project where the agent may write and delete (never the folder itself, never under the home folder). Relative to the project; ~/ for home.',
      requirement: 'a list of folders',
      default: [...GUARD_DEFAULTS.writablePaths],
      defaultIn: BY_POLICY,
    }),
    readablePaths: list({
      description:
        'Folders outside the project that the file tools (Read, Grep, Glob) may read, besides writablePaths; every other folder outside the project is refused to them. Relative to the project; ~/ for home. Secrets stay refused.',
      requirement: 'a list of folders',
      default: [...GUARD_DEFAULTS.readablePaths],
      defaultIn: BY_POLICY,
    }),
    allowTools: list({
      description:
        'Tools the guard does not know (MCP tools `mcp__server__tool`, new Claude Code tools) that an unattended run may use: names, with * matching anything (e.g. "mcp__github__*"). Every other unknown tool is denied in `ralph run`.',
      requirement: 'a list of tool names or patterns such as "mcp__github__*"',
      default: [...GUARD_DEFAULTS.allowTools],
      defaultIn: BY_POLICY,
    }),
    timeBudgetMs: wholeNumber(1, {
      description:
        'The longest one guard decision may take, in milliseconds, in `ralph run`; a call that takes longer is denied (Claude Code would run it unchecked if the hook timed out).',
      default: GUARD_TIME_BUDGET_MS,
    }),
    protectedPaths: list({
      description:
        "Paths inside the project the agent may not write or delete, added to the built-in ones (.git, .claude/settings*.json, .ralph/config.yaml, the loop directory's control files).",
      requirement: 'a list of paths',
      default: [...GUARD_DEFAULTS.protectedPaths],
      defaultIn: BY_POLICY,
    }),
    sensitiveFiles: list({
      description:
        'More secrets, added to the built-in ones (.env, .env.*, *.pem, *.key, id_rsa*, credentials*, secrets*, ~/.ssh, ~/.aws, …): a glob on the file name, or a path glob (relative to the project, or /… or ~/…).',
      requirement: 'a list of globs',
      default: [...GUARD_DEFAULTS.sensitiveFiles],
      defaultIn: BY_POLICY,
    }),
    allowSensitiveFiles: list({
      description: 'Files that look secret but are not (e.g. ".env.test"), in the same glob forms.',
      requirement: 'a list of globs',
      default: [...GUARD_DEFAULTS.allowSensitiveFiles],
      defaultIn: BY_POLICY,
    }),
  },
  'a mapping (enabled, network, allowCommands, …)',
);
