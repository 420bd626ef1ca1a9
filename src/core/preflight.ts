import { readFile, stat } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import type { AgentProbe } from '../agents/types.js';
import { readTaskListFile, type TaskListDocument } from '../plan/read.js';
import { checkSpecSync } from '../plan/spec-sync.js';
import { parseSpec, structureProblems, type Spec } from '../plan/spec.js';
import { findGitRepo } from '../state/git.js';
import { findTaskListFile, isFile, loopPaths, resolveLoopDir } from '../state/paths.js';
import { readTaskListSnapshot } from '../state/task-list-snapshot.js';
import { formatLocation, RalphError } from '../util/errors.js';
import type { CheckStatus, PreflightCheck } from './preflight-check.js';
import { checkUserHooks } from './preflight-hooks.js';
import { checkPlaceholders } from './preflight-placeholders.js';

/**
 * The preflight of the Ralph Hybrid spec: everything a run needs, checked before any agent
 * starts. `ralph validate` prints it; `ralph run` refuses to start when a check fails.
 */

export type { CheckStatus, PreflightCheck } from './preflight-check.js';

export interface PreflightReport {
  ok: boolean;
  branch: string | undefined;
  loopDir: string;
  checks: PreflightCheck[];
  /** The parsed task list when it could be read, so callers need not read it twice. */
  taskList: TaskListDocument | undefined;
}

export interface PreflightOptions {
  cwd: string;
  /** The loop directory as the user gave it; undefined derives it from the git branch. */
  dir: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  protectedBranches: readonly string[];
  agent: AgentProbe;
  /** Set when the run's OS sandbox is on: whether bubblewrap was found. */
  sandbox?: { bwrapFound: boolean } | undefined;
  /**
   * Who the agent runs as (the caller's uid; undefined where there are no uids) and whether it
   * gets --dangerously-skip-permissions, which Claude Code refuses as root unless IS_SANDBOX=1.
   */
  user?: { uid: number | undefined; skipPermissions: boolean } | undefined;
}

function check(
  name: string,
  status: CheckStatus,
  message: string,
  extra: { details?: string[]; hint?: string | undefined } = {},
): PreflightCheck {
  return { name, status, message, details: extra.details ?? [], hint: extra.hint };
}

function sandboxCheck(bwrapFound: boolean): PreflightCheck {
  return bwrapFound
    ? check('sandbox', 'pass', 'bubblewrap found: the agent runs in the OS sandbox')
    : check('sandbox', 'fail', 'the sandbox is on, but bubblewrap (bwrap) is not installed', {
        hint: 'apt-get install bubblewrap, or turn the sandbox off: --no-sandbox or sandbox.enabled: false',
      });
}

/**
 * Root without IS_SANDBOX=1: Claude Code exits at once when given --dangerously-skip-permissions
 * ("cannot be used with root/sudo privileges"). A failure when the run would pass it; otherwise a
 * warning, since the flag is one `ralph run --dangerously-skip-permissions` away.
 */
function rootCheck(options: PreflightOptions): PreflightCheck | undefined {
  const { user } = options;
  if (user?.uid !== 0 || options.env.IS_SANDBOX === '1') return undefined;
  const hint =
    'inside a container or VM set IS_SANDBOX=1 (Claude Code then accepts the flag); otherwise run ralph as a normal user';
  return user.skipPermissions
    ? check(
        'root',
        'fail',
        'Running as root: Claude Code refuses --dangerously-skip-permissions here without IS_SANDBOX=1',
        { hint },
      )
    : check(
        'root',
        'warn',
        'Running as root without IS_SANDBOX=1: Claude Code would refuse --dangerously-skip-permissions',
        { hint: `${hint}; without the flag (the default) the agent runs in acceptEdits mode` },
      );
}

export async function runPreflight(options: PreflightOptions): Promise<PreflightReport> {
  const checks: PreflightCheck[] = [];
  // The agent's probe (`claude --version`) is a process of its own: it runs while the files are
  // checked, and its checks still come last.
  const agentChecks: PreflightCheck[] = [];
  const [files, probed] = await Promise.allSettled([
    checkFiles(options, checks),
    checkAgent(options, agentChecks),
  ]);
  if (files.status === 'rejected') throw files.reason;
  if (probed.status === 'rejected') throw probed.reason;
  const { branch, loopDir, taskList } = files.value;
  checks.push(...agentChecks);
  const root = rootCheck(options);
  if (root !== undefined) checks.push(root);
  if (options.sandbox !== undefined) checks.push(sandboxCheck(options.sandbox.bwrapFound));
  const shownDir = loopDir ?? options.dir ?? '';
  return {
    ok: checks.every((each) => each.status !== 'fail'),
    branch,
    loopDir: shownDir,
    checks,
    taskList,
  };
}

async function checkFiles(
  options: PreflightOptions,
  checks: PreflightCheck[],
): Promise<{
  branch: string | undefined;
  loopDir: string | undefined;
  taskList: TaskListDocument | undefined;
}> {
  const { branch, loopDir } = await checkBranch(options, checks);
  const taskList = loopDir === undefined ? undefined : await checkLoopDir(loopDir, options, checks);
  return { branch, loopDir, taskList };
}

async function checkBranch(
  options: PreflightOptions,
  checks: PreflightCheck[],
): Promise<{ branch: string | undefined; loopDir: string | undefined }> {
  // The agent commits its work, so the repository around cwd matters even with an explicit DIR.
  const repo = await findGitRepo(options.cwd).catch(() => undefined);
  if (repo === undefined) {
    checks.push(
      check('branch', 'fail', `Not in a git repository: ${options.cwd}`, {
        hint: 'the agent commits each story; run `git init` (or cd into your repository) first',
      }),
    );
  } else if (repo.branch === undefined) {
    checks.push(
      check('branch', 'fail', 'No branch: HEAD is detached', {
        hint: 'check out a branch: git switch -c feature/<name>',
      }),
    );
  } else {
    checks.push(check('branch', 'pass', `Branch detected: ${repo.branch}`));
    if (options.protectedBranches.includes(repo.branch)) {
      checks.push(
        check('protected-branch', 'warn', `On protected branch '${repo.branch}'`, {
          hint: 'the agent will commit here; consider a feature branch: git switch -c feature/<name>',
        }),
      );
    }
  }
  try {
    const resolved = await resolveLoopDir({
      dir: options.dir,
      cwd: options.cwd,
      protectedBranches: options.protectedBranches,
    });
    return { branch: repo?.branch, loopDir: resolved.dir };
  } catch (error) {
    // Without DIR the folder comes from the branch; the branch check above already says why not.
    if (error instanceof RalphError) return { branch: repo?.branch, loopDir: undefined };
    throw error;
  }
}

async function checkLoopDir(
  loopDir: string,
  options: PreflightOptions,
  checks: PreflightCheck[],
): Promise<TaskListDocument | undefined> {
  const shown = displayPath(options.cwd, loopDir);
  const stats = await stat(loopDir).catch(() => undefined);
  if (!stats?.isDirectory()) {
    checks.push(
      check('folder', 'fail', `Loop directory not found: ${shown}`, {
        hint:
          options.dir === undefined
            ? 'create it with `ralph init`'
            : `create it with \`ralph init ${options.dir}\``,
      }),
    );
    return undefined;
  }
  checks.push(check('folder', 'pass', `Folder exists: ${shown}`));

  const paths = loopPaths(loopDir);
  const found = await findTaskListFile(loopDir);
  const missing: string[] = [];
  if (found === undefined) missing.push('prd.json (or feature_list.json)');
  const hasProgress = await isFile(paths.progress);
  const hasSpec = await isFile(paths.spec);
  if (found === undefined) {
    checks.push(
      check('files', 'fail', `Missing task list in ${shown}: ${missing.join(', ')}`, {
        // Plain `ralph init` refuses a folder that already has prompt.md or progress.txt.
        hint: `create an example with \`ralph init --missing${options.dir === undefined ? '' : ` ${options.dir}`}\` (writes only the missing files), or copy your prd.json / feature_list.json into the loop directory`,
      }),
    );
  } else {
    checks.push(check('files', 'pass', 'Required files present', { details: found.warnings }));
  }
  if (!hasProgress) {
    checks.push(
      check('files', 'warn', 'progress.txt missing', {
        hint: 'ralph creates it on the first run; `ralph init` writes one with a header',
      }),
    );
  }
  if (!hasSpec) {
    checks.push(
      check('files', 'warn', 'spec.md missing: the sync check is skipped', {
        hint: 'spec.md holds the requirements the task list is derived from (see `ralph init`)',
      }),
    );
  }

  await checkUserHooks(loopDir, checks);
  const document =
    found === undefined ? undefined : await checkTaskList(found.path, checks, loopDir);
  if (document !== undefined) checkMcpServers(document, options, checks);
  const spec = hasSpec ? await checkSpec(paths.spec, checks) : undefined;
  if (spec !== undefined && document !== undefined) checkSync(spec, document, checks);
  checkPlaceholders(document, spec, checks);
  return document;
}

async function checkTaskList(
  path: string,
  checks: PreflightCheck[],
  loopDir: string,
): Promise<TaskListDocument | undefined> {
  const name = basename(path);
  try {
    const document = await readTaskListFile(path);
    const { stories } = document.taskList;
    if (stories.length === 0) {
      checks.push(
        check('task-list', 'fail', `${name} has no stories`, {
          hint: 'add at least one story (see `ralph init` for an example)',
        }),
      );
      return document;
    }
    const passing = stories.filter((story) => story.passes).length;
    checks.push(
      check(
        'task-list',
        'pass',
        `${name} schema valid (${FORMAT_NAMES[document.taskList.format]}, ${stories.length} ${stories.length === 1 ? 'story' : 'stories'}, ${passing} passing)`,
      ),
    );
    return document;
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    const where = error.location ? formatLocation(error.location) : path;
    // The message usually starts with the place already (file:line:column): say it once.
    const detail = error.message.startsWith(where) ? error.message : `${where}: ${error.message}`;
    // Left torn by a run that was killed mid-iteration: the next run restores it (recoverTaskList).
    const snapshot = await readTaskListSnapshot(loopDir);
    if (snapshot?.file === name) {
      checks.push(
        check('task-list', 'warn', `${name} is invalid; ralph run restores it`, {
          details: [detail],
          hint: `an earlier run was stopped during iteration ${snapshot.iteration}; \`ralph run\` restores ${name} from the snapshot taken before it, keeping the passes and notes it can still read`,
        }),
      );
      return undefined;
    }
    checks.push(
      check('task-list', 'fail', `${name} is invalid`, {
        details: [detail],
        hint: error.hint,
      }),
    );
    return undefined;
  }
}

const FORMAT_NAMES: Record<TaskListDocument['taskList']['format'], string> = {
  'prd-hybrid': 'ralph-hybrid prd.json',
  'prd-snarktank': 'snarktank prd.json',
  'feature-list-object': 'feature_list.json',
  'feature-list-array': 'feature list array',
};

async function checkSpec(path: string, checks: PreflightCheck[]): Promise<Spec> {
  const spec = parseSpec(await readFile(path, 'utf8'), path);
  const problems = structureProblems(spec);
  const errors = problems.filter((problem) => problem.severity === 'error');
  const warnings = problems.filter((problem) => problem.severity === 'warning');
  if (errors.length > 0) {
    checks.push(
      check('spec', 'fail', 'spec.md structure invalid', {
        details: errors.map((each) => each.message),
      }),
    );
  }
  for (const warning of warnings) checks.push(check('spec', 'warn', `spec.md: ${warning.message}`));
  if (problems.length === 0) checks.push(check('spec', 'pass', 'spec.md structure valid'));
  return spec;
}

function checkSync(spec: Spec, document: TaskListDocument, checks: PreflightCheck[]): void {
  const findings = checkSpecSync(spec, document.taskList, {
    taskListFile: basename(document.file),
  });
  const errors = findings.filter((finding) => finding.severity === 'error');
  const warnings = findings.filter((finding) => finding.severity === 'warning');
  if (errors.length > 0) {
    checks.push(
      check('sync', 'fail', 'Sync check failed:', {
        details: errors.map((each) => each.message),
        hint: errors.find((each) => each.hint !== undefined)?.hint,
      }),
    );
  }
  for (const warning of warnings) {
    checks.push(check('sync', 'warn', warning.message, { hint: warning.hint }));
  }
  if (errors.length === 0) checks.push(check('sync', 'pass', 'Sync check passed'));
}

/** Stories still to run that name MCP servers the agent cannot find would fail mid-run. */
function checkMcpServers(
  document: TaskListDocument,
  options: PreflightOptions,
  checks: PreflightCheck[],
): void {
  const { agent } = options;
  if (agent.mcpServersProblem === undefined) return;
  const problems: string[] = [];
  for (const story of document.taskList.stories) {
    if (story.passes || story.mcpServers === undefined || story.mcpServers.length === 0) continue;
    const problem = agent.mcpServersProblem(story.mcpServers, options.cwd);
    if (problem !== undefined) problems.push(`${story.id}: ${problem}`);
  }
  if (problems.length === 0) return;
  checks.push(
    check('mcp', 'fail', 'MCP servers named by stories are not configured', {
      details: problems,
      hint: "add them (claude mcp add …, or .mcp.json), or change the stories' mcpServers",
    }),
  );
}

async function checkAgent(options: PreflightOptions, checks: PreflightCheck[]): Promise<void> {
  const result = await options.agent.probe();
  if (result.found && result.problem === undefined) {
    checks.push(
      check(
        'agent',
        'pass',
        `Claude Code found: ${result.command} ${result.version ?? '(version unknown)'}`,
      ),
    );
  } else {
    checks.push(
      check('agent', 'fail', `Claude Code not usable: ${result.problem ?? 'unknown problem'}`, {
        hint: 'install it (npm install -g @anthropic-ai/claude-code) or point ralph at it with RALPH_CLAUDE_BIN or agents.claude.command in config',
      }),
    );
  }
  const nested = options.env.CLAUDECODE;
  if (nested !== undefined && nested !== '') {
    checks.push(
      check('nested', 'fail', 'Running inside a Claude Code session (CLAUDECODE is set)', {
        hint: 'start ralph from a normal terminal: a loop inside an agent session would nest agents',
      }),
    );
  }
}

function displayPath(cwd: string, path: string): string {
  const shown = relative(cwd, path);
  return shown === '' ? '.' : shown.startsWith('..') ? path : `${shown}/`;
}
