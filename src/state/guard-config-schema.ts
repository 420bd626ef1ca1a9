import * as z from 'zod';

/**
 * The `guard` section of config.yaml: the policy of ralph's PreToolUse guard (src/guard). The
 * built-in rules need no configuration — privilege escalation, system administration, writes
 * and deletes outside the project, secrets, code piped into interpreters, commands known only
 * at run time are denied whatever is set here; these keys add to them or make exceptions. A
 * loop directory's own config.yaml may carry a `guard` section too: it overrides the project's
 * for runs of that loop (lists replace, they do not add up).
 */

const commands = (what: string) =>
  z.array(z.string().min(1)).describe(`Command names (the word after any wrapper) ${what}.`);

const patterns = (what: string) =>
  z
    .array(z.string().min(1))
    .describe(
      `Patterns over a whole simple command, \`name arg1 arg2\`, with * matching anything (e.g. "git push --force*"), ${what}.`,
    );

export const guardFields = {
  enabled: z
    .boolean()
    .describe(
      '`ralph run` installs the guard as a PreToolUse hook of every iteration. Turn off only inside a sandbox. Default true.',
    ),
  network: z
    .enum(['allow', 'ask', 'deny'])
    .describe(
      'curl, wget, ssh, nc and friends: allow, ask (denied in unattended runs) or deny. Whatever is set, a download is never run by piping it into a shell. Default allow.',
    ),
  allowCommands: commands(
    'allowed even where a built-in rule denies the command itself (sudo, systemctl, …); path and secret rules still apply',
  ),
  askCommands: commands('that need a person (denied in unattended runs)'),
  denyCommands: commands('always denied'),
  allowPatterns: patterns('allowed outright: checked first, so they override every other rule'),
  askPatterns: patterns('that need a person (denied in unattended runs)'),
  denyPatterns: patterns(
    'denied. Default: force pushes, npm publish, chmod 777. Setting it replaces the default',
  ),
  writablePaths: z
    .array(z.string().min(1))
    .describe(
      'Folders outside the project where the agent may write and delete (never the folder itself, never under the home folder). Relative to the project; ~/ for home. Default [/tmp].',
    ),
  protectedPaths: z
    .array(z.string().min(1))
    .describe(
      "Paths inside the project the agent may not write or delete, added to the built-in ones (.git, .claude/settings*.json, .ralph/config.yaml, the loop directory's control files).",
    ),
  sensitiveFiles: z
    .array(z.string().min(1))
    .describe(
      'More secrets, added to the built-in ones (.env, .env.*, *.pem, *.key, id_rsa*, credentials*, secrets*, ~/.ssh, ~/.aws, …): a glob on the file name, or a path glob (relative to the project, or /… or ~/…).',
    ),
  allowSensitiveFiles: z
    .array(z.string().min(1))
    .describe('Files that look secret but are not (e.g. ".env.test"), in the same glob forms.'),
};

export const guardFileSchema = z
  .strictObject({
    enabled: guardFields.enabled.optional(),
    network: guardFields.network.optional(),
    allowCommands: guardFields.allowCommands.optional(),
    askCommands: guardFields.askCommands.optional(),
    denyCommands: guardFields.denyCommands.optional(),
    allowPatterns: guardFields.allowPatterns.optional(),
    askPatterns: guardFields.askPatterns.optional(),
    denyPatterns: guardFields.denyPatterns.optional(),
    writablePaths: guardFields.writablePaths.optional(),
    protectedPaths: guardFields.protectedPaths.optional(),
    sensitiveFiles: guardFields.sensitiveFiles.optional(),
    allowSensitiveFiles: guardFields.allowSensitiveFiles.optional(),
  })
  .optional()
  .describe("The guard: ralph's PreToolUse policy for the agent's tool calls.");

/** Resolved: only `enabled` gets its default here; src/guard/policy.ts fills in the lists. */
export const guardSchema = z
  .strictObject({
    ...guardFileSchema.unwrap().shape,
    enabled: guardFields.enabled.default(true),
  })
  .prefault({});

export const GUARD_REQUIREMENTS: Readonly<Record<string, string>> = {
  guard: 'a mapping (enabled, network, allowCommands, …)',
  'guard.enabled': 'true or false',
  'guard.network': 'one of allow, ask, deny',
  'guard.allowCommands': 'a list of command names',
  'guard.askCommands': 'a list of command names',
  'guard.denyCommands': 'a list of command names',
  'guard.allowPatterns': 'a list of patterns such as "git push --force*"',
  'guard.askPatterns': 'a list of patterns such as "git push --force*"',
  'guard.denyPatterns': 'a list of patterns such as "git push --force*"',
  'guard.writablePaths': 'a list of folders',
  'guard.protectedPaths': 'a list of paths',
  'guard.sensitiveFiles': 'a list of globs',
  'guard.allowSensitiveFiles': 'a list of globs',
};
