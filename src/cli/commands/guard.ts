import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { appendAudit, summariseInput } from '../../guard/audit.js';
import { judgeToolCall, prepareDecision, type Verdict } from '../../guard/decide.js';
import { failClosed, preToolUseOutput, parsePreToolUseInput } from '../../guard/hook-io.js';
import { resolvePolicy, type GuardSettings } from '../../guard/policy.js';
import { projectPaths, userConfigPath } from '../../state/paths.js';

/**
 * `ralph guard`, the PreToolUse hook command of interactive sessions (`ralph setup --guard`).
 * Claude Code starts it before every tool call, so bin.ts comes here before loading commander,
 * and this module's graph is node built-ins plus src/guard (the parser loads only for Bash;
 * zod and yaml only when a config file sets `guard:`). Always exits 0 with a decision on
 * stdout; input it cannot understand, or any failure of its own, is a deny.
 */

export interface GuardMainIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const GUARD_HELP = `Usage: ralph guard [--audit-log FILE] [--unattended]

The Claude Code PreToolUse hook of ralph's guard (install it with \`ralph setup --guard\`; \`ralph
run\` serves the same policy in-process). Reads the hook JSON on stdin and prints
{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"|"deny"|"ask",
"permissionDecisionReason":"…"}}. Bash commands are parsed like bash does and every simple
command in them is judged; file tools are judged by path. Input it cannot parse is denied.
Every decision is appended to FILE (default <project>/.ralph/logs/audit.jsonl).

Options:
  --audit-log FILE  where to append the decisions
  --unattended      deny what would otherwise ask (nobody is there to answer)
  -h, --help        show this help
`;

export async function guardMain(argv: readonly string[], io: GuardMainIo): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(GUARD_HELP);
    return 0;
  }
  const started = performance.now();
  let verdict: Verdict;
  try {
    verdict = await run(argv, io, started);
  } catch (error) {
    verdict = failClosed(
      `internal error (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  io.stdout.write(`${preToolUseOutput(verdict)}\n`);
  return 0;
}

async function run(argv: readonly string[], io: GuardMainIo, started: number): Promise<Verdict> {
  const unknown = argv.filter(
    (arg, i) => !['--audit-log', '--unattended'].includes(arg) && argv[i - 1] !== '--audit-log',
  );
  if (unknown.length > 0)
    return failClosed(`unknown option ${unknown[0] ?? ''} (see ralph guard --help)`);
  if (io.stdin.isTTY === true) return failClosed('expects the PreToolUse hook JSON on stdin');
  const parsed = parsePreToolUseInput(await readAll(io.stdin));
  if (!parsed.ok) return failClosed(parsed.problem);
  const { input } = parsed;
  const cwd = input.cwd !== undefined && isAbsolute(input.cwd) ? input.cwd : io.cwd;
  const projectRoot = io.env.CLAUDE_PROJECT_DIR ?? gitRoot(cwd) ?? cwd;
  const policy = resolvePolicy({
    projectRoot,
    homeDir: io.env.HOME ?? homedir(),
    settings: await guardSettings(projectRoot, io),
    unattended: argv.includes('--unattended'),
  });
  await prepareDecision(input);
  const verdict = judgeToolCall(input, policy);
  const flag = argv.indexOf('--audit-log');
  const auditLog =
    flag >= 0 && argv[flag + 1] !== undefined
      ? resolve(io.cwd, argv[flag + 1] ?? '')
      : projectPaths(policy.projectRoot).auditLog;
  writeAudit(auditLog, projectPaths(policy.projectRoot).auditLog, {
    at: new Date().toISOString(),
    sessionId: input.sessionId,
    tool: input.toolName,
    input: summariseInput(input.toolInput),
    decision: verdict.decision,
    rule: verdict.rule,
    reason: verdict.reason,
    ms: Math.round((performance.now() - started) * 1000) / 1000,
  });
  return verdict;
}

function writeAudit(
  file: string,
  projectAuditLog: string,
  entry: Parameters<typeof appendAudit>[1],
): void {
  appendAudit(file, entry);
  // The project-level log is run state, not source: keep it out of commits.
  const ignore = join(dirname(file), '.gitignore');
  if (file === projectAuditLog && !existsSync(ignore)) {
    // 'wx': a dangling link planted under that name fails (EEXIST) instead of being followed.
    try {
      writeFileSync(ignore, '*\n', { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** The nearest folder holding `.git`, found without starting git (a process costs milliseconds). */
function gitRoot(from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The `guard` settings of the user and project config. zod and yaml cost ~100 ms to load, so
 * they are loaded only when a config file mentions `guard` or a RALPH_GUARD_* variable is set.
 */
async function guardSettings(
  projectRoot: string,
  io: GuardMainIo,
): Promise<GuardSettings | undefined> {
  const home = io.env.HOME ?? homedir();
  const files = [userConfigPath({ homeDir: home, env: io.env }), projectPaths(projectRoot).config];
  const mentioned = files.some((file) => {
    try {
      return /^\s*guard\s*:/m.test(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  });
  const fromEnv = Object.keys(io.env).some((name) => name.startsWith('RALPH_GUARD_'));
  if (!mentioned && !fromEnv) return undefined;
  const { loadConfig } = await import('../../state/config.js');
  const loaded = await loadConfig({ homeDir: home, env: io.env, repoRoot: projectRoot });
  return loaded.config.guard;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
