import { dirname, isAbsolute, join, resolve } from 'node:path';
import { absolutePath, readProblem, writeProblem, type PathProblem } from './path-rules.js';
import type { Decision, GuardPolicy } from './policy.js';
import { isWithin, sensitiveRule } from './sensitive.js';
import { realPath } from './policy.js';
import { analyzeShell, type Finding, type Judge } from './shell/analyze.js';
import { judgeCommand } from './shell/commands.js';
import { checkWrite } from './shell/args.js';
import { loadShellParser } from './shell/parse.js';
import { otherToolFinding } from './tools.js';
import { TooLargeToJudge } from './limits.js';
import { fileToolReadProblem } from './path-rules.js';

/**
 * The decision for one PreToolUse call: Bash commands are parsed and every simple command in
 * them judged; file tools are judged by path. The first denial decides (its rule and reason go
 * to the model and the audit log); with none, an `ask` asks — or, in an unattended run where
 * nobody can answer, denies.
 */

export interface ToolCall {
  toolName: string;
  toolInput: Record<string, unknown>;
  /** The agent's working directory (the hook input's `cwd`). */
  cwd: string | undefined;
  /**
   * The session's transcript (the hook input's `transcript_path`): Claude Code keeps the session's
   * large tool outputs beside it and has the agent Read them there.
   */
  transcriptPath?: string | undefined;
}

export interface Verdict {
  decision: Decision;
  /** Which rule decided: `outside-project`, `pipe-to-interpreter`, `allowed`, … */
  rule: string;
  reason: string;
}

const PREFIX = 'ralph guard: ';

/** Longer commands are refused unparsed: the judge's work grows with them (a 1 MB here-document). */
export const MAX_COMMAND_CHARS = 100_000;

/**
 * For a process that decides one call and exits (`ralph guard`): loads what `judgeToolCall` needs
 * for it — the shell parser (WebAssembly, loaded asynchronously) for Bash. Without it,
 * `judgeToolCall` fails and the caller denies. The guard service loads the parser itself when it
 * starts.
 */
export async function prepareDecision(call: Pick<ToolCall, 'toolName'>): Promise<void> {
  if (call.toolName === 'Bash') await loadShellParser({ shortLived: true });
}

export function judgeToolCall(call: ToolCall, shared: GuardPolicy): Verdict {
  const policy: GuardPolicy = {
    ...shared,
    written: new Map(),
    globScan: { listings: new Map(), names: 0 },
  };
  const findings = judgeTool(call, policy);
  const denial = findings.find((finding) => finding.decision === 'deny');
  const asked = findings.find((finding) => finding.decision === 'ask');
  if (denial !== undefined)
    return { decision: 'deny', rule: denial.rule, reason: PREFIX + denial.reason };
  if (asked !== undefined) {
    return policy.unattended
      ? {
          decision: 'deny',
          rule: asked.rule,
          reason: `${PREFIX}${asked.reason}; nobody can approve it in an unattended run`,
        }
      : { decision: 'ask', rule: asked.rule, reason: PREFIX + asked.reason };
  }
  return { decision: 'allow', rule: 'allowed', reason: `${PREFIX}allowed` };
}

function judgeTool(call: ToolCall, policy: GuardPolicy): Finding[] {
  const cwd = call.cwd !== undefined && isAbsolute(call.cwd) ? call.cwd : policy.projectRoot;
  const input = call.toolInput;
  const findings: Finding[] = [];
  const problem = (found: PathProblem | undefined) => {
    if (found !== undefined) findings.push({ decision: 'deny', ...found });
  };
  const filePath = (key: string): string | undefined => {
    const value = input[key];
    if (typeof value !== 'string' || value === '') {
      findings.push({
        decision: 'deny',
        rule: 'bad-input',
        reason: `${call.toolName} without a ${key}`,
      });
      return undefined;
    }
    return resolve(cwd, value.startsWith('~/') ? join(policy.homeDir, value.slice(2)) : value);
  };
  switch (call.toolName) {
    case 'Bash': {
      const command = input.command;
      if (typeof command !== 'string') {
        findings.push({ decision: 'deny', rule: 'bad-input', reason: 'Bash without a command' });
        break;
      }
      if (command.length > MAX_COMMAND_CHARS) {
        findings.push({
          decision: 'deny',
          rule: 'too-large',
          reason: `the command is ${command.length} characters long, over the guard's ${MAX_COMMAND_CHARS}; write long content with the Write tool and run it in smaller steps`,
        });
        break;
      }
      try {
        analyzeShell(command, cwd, 0, createJudge(policy, findings));
      } catch (error) {
        if (!(error instanceof TooLargeToJudge)) throw error;
        findings.push({ decision: 'deny', rule: 'too-large', reason: error.message });
      }
      break;
    }
    case 'Read':
    case 'NotebookRead': {
      const path = filePath(call.toolName === 'Read' ? 'file_path' : 'notebook_path');
      if (path !== undefined)
        problem(named(call.toolName, fileToolReadProblem(path, policy, sessionFolder(call))));
      break;
    }
    case 'Write':
    case 'Edit':
    case 'MultiEdit': {
      const path = filePath('file_path');
      if (path !== undefined) problem(named(call.toolName, writeProblem(path, 'write', policy)));
      break;
    }
    case 'NotebookEdit': {
      const path = filePath('notebook_path');
      if (path !== undefined) problem(named(call.toolName, writeProblem(path, 'write', policy)));
      break;
    }
    case 'Glob':
    case 'Grep':
    case 'LS': {
      const path =
        typeof input.path === 'string' && input.path !== '' ? resolve(cwd, input.path) : cwd;
      problem(named(call.toolName, fileToolReadProblem(path, policy, sessionFolder(call))));
      const pattern = call.toolName === 'Glob' ? input.pattern : input.glob;
      if (typeof pattern === 'string') problem(globProblem(join(path, pattern), policy));
      break;
    }
    default: {
      const other = otherToolFinding(call.toolName, policy);
      if (other !== undefined) findings.push(other);
      break;
    }
  }
  return findings;
}

/** The folder of the session's transcript, where Claude Code saves outputs too large to show. */
function sessionFolder(call: ToolCall): string | undefined {
  const transcript = call.transcriptPath;
  return transcript !== undefined && isAbsolute(transcript) ? dirname(transcript) : undefined;
}

function named(tool: string, problem: PathProblem | undefined): PathProblem | undefined {
  return problem === undefined ? undefined : { ...problem, reason: `${tool} ${problem.reason}` };
}

/** A search pattern aimed at secrets (`**\/.env*`, `*.pem`): its literal part names one. */
function globProblem(pattern: string, policy: GuardPolicy): PathProblem | undefined {
  for (const fill of ['', 'x']) {
    const literal = pattern
      .replace(/\*\*\/?/g, '')
      .replace(/[*?]/g, fill)
      .replace(/\[[^\]]*\]/g, 'x');
    const rule = sensitiveRule(literal, policy);
    if (rule !== undefined) {
      return {
        rule: 'sensitive-file',
        reason: `the pattern ${pattern} looks for secrets (${rule}); the guard keeps secrets out of reach`,
      };
    }
  }
  return undefined;
}

/** The Judge that collects findings, recursing into nested shell code. */
function createJudge(policy: GuardPolicy, findings: Finding[]): Judge {
  const judge: Judge = {
    policy,
    findings,
    deny: (rule, reason) => findings.push({ decision: 'deny', rule, reason }),
    ask: (rule, reason) => findings.push({ decision: 'ask', rule, reason }),
    shell: (code, cwd, depth, what) => {
      if (code === undefined) {
        judge.deny(
          'dynamic-code',
          `${what} runs shell code that is only known when it runs (a variable or \`$(…)\`); write the code literally`,
        );
        return;
      }
      analyzeShell(code, cwd, depth, judge);
    },
    command: (command) => {
      judgeCommand(command, judge);
    },
    redirect: (operator, target, cwd) => {
      const fake = {
        text: `${operator}${target.dynamic ? target.text : target.value}`,
        path: '',
        name: '',
        args: [],
        piped: false,
        stdin: undefined,
        cwd,
        depth: 0,
      };
      if (operator.includes('>'))
        checkWrite(judge, { ...fake, text: `redirect ${fake.text}` }, target, 'write');
      if (operator.includes('<') && target.dynamic && target.text.includes('/proc/')) {
        judge.deny(
          'sensitive-file',
          `\`${fake.text}\` reads a process's file known only when it runs (its environment holds credentials)`,
        );
      }
      if (operator.includes('<') && !target.dynamic) {
        const path = isAbsolute(target.value)
          ? target.value
          : resolve(cwd ?? policy.projectRoot, target.value);
        const found = readProblem(path, policy);
        if (found !== undefined) judge.deny(found.rule, `\`${fake.text}\` ${found.reason}`);
      }
    },
    assignment: (name, value, cwd, depth) => {
      judgeAssignment(name, value, cwd, depth, judge);
    },
  };
  return judge;
}

/** Variables whose value is a command some program runs later, out of the guard's sight. */
const COMMAND_VARIABLES = new Set([
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'PAGER',
  'MANPAGER',
  'EDITOR',
  'VISUAL',
  'PROMPT_COMMAND',
]);

/** Variables that point git at another repository or work tree. */
const GIT_PATH_VARIABLES = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
]);

/** Variables that load code into every program started after them. */
const LOADER_VARIABLES = new Set([
  'LD_PRELOAD',
  'LD_AUDIT',
  'BASH_ENV',
  'ENV',
  'PYTHONSTARTUP',
  'PERL5OPT',
  'RUBYOPT',
  'GIT_CONFIG_PARAMETERS',
]);

function judgeAssignment(
  name: string,
  value: readonly { dynamic: boolean; value?: string }[],
  cwd: string | undefined,
  depth: number,
  judge: Judge,
): void {
  if (LOADER_VARIABLES.has(name) || name.startsWith('GIT_CONFIG_')) {
    judge.deny(
      'loader-variable',
      `setting ${name} makes other programs load code the guard cannot check`,
    );
    return;
  }
  if (GIT_PATH_VARIABLES.has(name)) {
    // Every git command after it works on that repository or work tree.
    const [target] = value;
    const path =
      target === undefined || target.dynamic ? undefined : absolutePath(target.value ?? '', cwd);
    if (path === undefined) {
      judge.deny('dynamic-path', `setting ${name} to a path known only when it runs`);
      return;
    }
    // The project's own .git is protected from the agent's writes, not from git's.
    const problem = writeProblem(path, 'write', judge.policy);
    if (problem !== undefined && problem.rule !== 'protected-path')
      judge.deny(problem.rule, `setting ${name}: git ${problem.reason}`);
    return;
  }
  if (name === 'PATH') {
    judgePathVariable(value, judge);
    return;
  }
  if (name === 'CDPATH') {
    judge.deny('cdpath', 'setting CDPATH makes `cd` go where the guard cannot follow');
    return;
  }
  const [option] = value;
  // NODE_OPTIONS=--max-old-space-size=4096 is ordinary; a --require or --import loads code.
  if (
    name === 'NODE_OPTIONS' &&
    (option === undefined ||
      option.dynamic ||
      /(^|\s)(-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p|--print)\b/.test(
        option.value ?? '',
      ))
  ) {
    judge.deny(
      'loader-variable',
      'NODE_OPTIONS that load or run code make every node process run code the guard cannot check',
    );
    return;
  }
  if (!COMMAND_VARIABLES.has(name)) return;
  judge.shell(
    option === undefined || option.dynamic ? undefined : option.value,
    cwd,
    depth + 1,
    name,
  );
}

/**
 * `PATH=bin:$PATH git status`: a folder the agent can write, searched before the system's, runs
 * the agent's own `git` (or `node`) in place of the real one, unseen. Folders after `$PATH` only
 * add programs.
 */
function judgePathVariable(
  value: readonly { dynamic: boolean; value?: string; text?: string }[],
  judge: Judge,
): void {
  const [word] = value;
  const text = word === undefined ? '' : word.dynamic ? (word.text ?? '') : (word.value ?? '');
  for (const entry of text.replace(/^["']|["']$/g, '').split(':')) {
    if (/^\$\{?PATH\}?$/.test(entry)) return;
    const absolute = entry.startsWith('/') && !/[$`]/.test(entry);
    const inProject =
      absolute &&
      (isWithin(realPath(entry), judge.policy.projectRoot) ||
        judge.policy.writableRoots.some((root) => isWithin(realPath(entry), root)));
    if (!absolute || inProject) {
      judge.deny(
        'path-variable',
        `PATH puts ${entry === '' ? 'the working directory' : entry} before the system's folders, so a program the agent wrote could run as \`git\` or \`node\`; add it after $PATH, or run it by its path`,
      );
      return;
    }
  }
}
