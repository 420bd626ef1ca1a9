import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import type { AgentRunResult } from '../agents/types.js';
import { findTaskListFile } from '../state/paths.js';
import { writeFileAtomic } from '../state/atomic-write.js';
import { readFileNoFollow } from '../util/no-follow.js';
import {
  agentFailure,
  checkSessionOptions,
  prepareSession,
  runSessionAgent,
  withSessionLock,
  type Session,
  type SessionOptions,
} from './agent-session.js';
import { scanChanges, type ChangeScan } from './changed-files.js';
import { scanSection } from './verify-report.js';
import {
  readTaggedBlock,
  VERIFY_TAG,
  verifyVerdictSchema,
  type VerifyStatus,
  type VerifyVerdict,
} from './verdict.js';

export interface VerifyOptions extends SessionOptions {
  /** `-o`: where the report goes; default DIR/VERIFICATION.md (relative to cwd). */
  output?: string | undefined;
}

export interface VerifyResult {
  status: VerifyStatus;
  /** 0 VERIFIED, 1 NEEDS_WORK, 2 BLOCKED (the spec's exit codes). */
  exitCode: 0 | 1 | 2;
  /** The agent's verdict as written, when it wrote a valid one. */
  agentVerdict: VerifyVerdict | undefined;
  /** Why the status is not simply the agent's: no verdict, a bad one, stubs it missed, … */
  reasons: string[];
  scan: ChangeScan;
  reportFile: string;
  logFile: string;
  /** The session was aborted (Ctrl+C): the status is BLOCKED and says so. */
  interrupted: boolean;
  agent: AgentRunResult | undefined;
}

const BUILT_IN_PROMPT = new URL('../../templates/verify.md', import.meta.url);
const EXIT_CODES: Readonly<Record<VerifyStatus, 0 | 1 | 2>> = {
  VERIFIED: 0,
  NEEDS_WORK: 1,
  BLOCKED: 2,
};

/**
 * `ralph verify`: ralph scans the lines the feature added for stubs, then one agent session
 * verifies the feature goal-backward and writes the report; ralph reads its verdict (a zod-checked
 * ```ralph-verdict block) and appends its own scan. The verdict is the agent's, made stricter
 * by what ralph knows: no valid verdict is BLOCKED, and VERIFIED over stubs ralph found is
 * NEEDS_WORK.
 */
export async function verifyFeature(options: VerifyOptions): Promise<VerifyResult> {
  const { output, ...rest } = options;
  const session = await prepareSession(checkSessionOptions('verifyFeature', rest));
  return withSessionLock(session, 'ralph verify', () => verifyLocked(session, output));
}

async function verifyLocked(session: Session, output: string | undefined): Promise<VerifyResult> {
  const cwd = session.given.cwd ?? process.cwd();
  const reportFile = output === undefined ? session.paths.verification : resolve(cwd, output);
  const scan = await scanChanges({
    repoRoot: session.repoRoot,
    branch: session.branch,
    baseBranches: session.config.protectedBranches,
    exclude: [session.paths.dir],
    env: session.given.env,
    signal: session.given.signal,
  });
  // A report left by an earlier verify must not pass for this one's.
  await rm(reportFile, { force: true });
  await mkdir(dirname(reportFile), { recursive: true });
  const prompt = await verifyPrompt(session, reportFile, scan);
  const logFile = session.paths.verifyLog;
  const agent = await runSessionAgent(session, prompt, logFile);
  const failure = agentFailure(agent);
  // Not through a link: the agent could point the report at a secret for ralph to copy here.
  const written = await readFileNoFollow(reportFile).catch(() => undefined);
  const judged = judge(written, failure, scan);
  const body = written ?? `# Verification\n\nThe agent wrote no report.\n`;
  const report = [
    body.trimEnd(),
    '',
    scanSection(scan, { status: judged.status, reasons: judged.reasons }),
  ].join('\n');
  await writeFileAtomic(reportFile, report);
  return {
    ...judged,
    exitCode: EXIT_CODES[judged.status],
    scan,
    reportFile,
    logFile,
    interrupted: agent.canceled,
    agent,
  };
}

function judge(
  written: string | undefined,
  failure: string | undefined,
  scan: ChangeScan,
): Pick<VerifyResult, 'status' | 'agentVerdict' | 'reasons'> {
  if (failure !== undefined) {
    return { status: 'BLOCKED', agentVerdict: undefined, reasons: [`no verdict: ${failure}`] };
  }
  if (written === undefined) {
    return {
      status: 'BLOCKED',
      agentVerdict: undefined,
      reasons: ['no verdict: the agent wrote no report'],
    };
  }
  const parsed = readTaggedBlock(written, VERIFY_TAG, verifyVerdictSchema);
  if (!parsed.ok) {
    return {
      status: 'BLOCKED',
      agentVerdict: undefined,
      reasons: [`no verdict: ${parsed.problem}`],
    };
  }
  const verdict = parsed.value;
  const reasons: string[] = [];
  let status = verdict.status;
  if (status === 'VERIFIED' && scan.findings.length > 0) {
    status = 'NEEDS_WORK';
    reasons.push(
      `the agent said VERIFIED, but ralph's scan found ${scan.findings.length} possible stub(s) in the added lines`,
    );
  }
  if (status === 'VERIFIED' && scan.problem !== undefined) {
    status = 'NEEDS_WORK';
    reasons.push(`ralph could not scan the changes (${scan.problem})`);
  }
  return { status, agentVerdict: verdict, reasons };
}

async function verifyPrompt(
  session: Session,
  reportFile: string,
  scan: ChangeScan,
): Promise<string> {
  const { paths, repoRoot } = session;
  const shown = (path: string): string => {
    const inRepo = relative(repoRoot, path);
    return inRepo === '' ? '.' : inRepo.startsWith('..') ? path : inRepo;
  };
  const template = await readFile(BUILT_IN_PROMPT, 'utf8');
  const taskList = await findTaskListFile(paths.dir);
  const lines = [template.trimEnd(), '', '---', '', '## This verification', '', 'Files:'];
  if (await exists(paths.spec)) lines.push(`- spec: ${shown(paths.spec)}`);
  else
    lines.push(`- spec: none (${shown(paths.spec)} does not exist; use the task list's stories)`);
  if (await exists(paths.specsDir)) lines.push(`- detailed specs: ${shown(paths.specsDir)}`);
  if (taskList !== undefined) lines.push(`- task list: ${shown(taskList.path)}`);
  if (await exists(paths.progress)) lines.push(`- progress log: ${shown(paths.progress)}`);
  lines.push(`- write the report to: ${shown(reportFile)}`, '');
  lines.push(`Changes compared with: ${scan.base}`);
  if (scan.files.length > 0) {
    lines.push('Files the feature added or changed:', ...scan.files.map((file) => `- ${file}`));
  }
  lines.push('');
  if (scan.problem !== undefined) lines.push(`ralph's stub scan failed: ${scan.problem}`);
  else if (scan.findings.length === 0) lines.push("ralph's stub scan found nothing.");
  else {
    lines.push(
      "ralph's stub scan found (confirm or dismiss each):",
      ...scan.findings.map((each) => `- ${each.file}:${each.line} [${each.kind}] ${each.text}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}
