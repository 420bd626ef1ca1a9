import { Command } from '@commander-js/extra-typings';
import { cp, mkdir, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoAgent } from '../../agents/fake/demo-agent.js';
import { runToCompletion } from '../../agents/spawn.js';
import { jsonLinesReporter } from '../../monitor/reporters/json-lines.js';
import { textReporter } from '../../monitor/reporters/text.js';
import { startRun } from '../../run/start-run.js';
import { projectPaths } from '../../state/paths.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { reportError } from '../exit.js';

const DEMO_DIR = fileURLToPath(new URL('../../../templates/demo/', import.meta.url));

export function demoCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('demo')
    .description(
      'See a whole loop work in seconds, with no account: ralph copies a small sample project\n' +
        '(three stories) into a new git repository and runs the real loop on it with a scripted\n' +
        'agent that writes code and tests, runs them, commits and marks each story passing.',
    )
    .option('--dir <path>', 'where to create the demo project (default: a new temp folder)')
    .option('--pause <seconds>', 'seconds between iterations', '0.3')
    .option('--json', 'print one LoopEvent per line on stdout instead of text')
    .action(async (options) => {
      const json = options.json === true;
      try {
        const project = await createProject(
          options.dir === undefined ? undefined : resolve(context.cwd, options.dir),
          context,
        );
        const loopDir = join(projectPaths(project).ralphDir, 'demo');
        if (!json) writeLine(context.stdout, `ralph demo: sample project in ${project}\n`);
        const out = (line: string): void => {
          writeLine(json ? context.stderr : context.stdout, line);
        };
        const git = gitIn(project, context);
        const result = await startRun({
          dir: loopDir,
          cwd: project,
          env: context.env,
          homeDir: homeDirOf(context),
          maxIterations: 10,
          timeoutMinutes: 1,
          pauseSeconds: Math.max(0, Number(options.pause) || 0),
          // The sample is known to be sound, and the scripted agent needs no account.
          skipPreflight: true,
          archive: false,
          notify: false,
          agent: { adapter: createDemoAgent({ solutionsDir: join(DEMO_DIR, 'solutions') }) },
          reporters: [
            json
              ? jsonLinesReporter((line) => {
                  writeLine(context.stdout, line);
                })
              : textReporter(out, { verbose: true }),
          ],
          log: (line) => {
            writeLine(context.stderr, line);
          },
        });
        // ralph appends its session table to progress.txt and its checks to evidence.jsonl after
        // the agent's last commit: commit them too, so the demo leaves a clean repository.
        await git(['add', '-A', '--', '.ralph']);
        await git([
          'commit',
          '-q',
          '--allow-empty',
          '-m',
          "ralph demo: the run's progress and evidence",
        ]);
        if (!json) {
          writeLine(
            context.stdout,
            `\nLook around: cd ${project} && git log --oneline && npm test`,
          );
          writeLine(
            context.stdout,
            `             ralph status .ralph/demo   (from inside ${project})`,
          );
        }
        setExitCode(result.exitCode);
      } catch (error) {
        setExitCode(reportError(error, context, json));
      }
    });
}

async function createProject(dir: string | undefined, context: CliContext): Promise<string> {
  const project = dir ?? (await mkdtemp(join(tmpdir(), 'ralph-demo-')));
  await mkdir(project, { recursive: true });
  if ((await readdir(project)).length > 0) {
    throw new RalphError('ALREADY_EXISTS', `${project} is not empty`, {
      hint: 'pass --dir with a new or empty folder',
    });
  }
  await cp(join(DEMO_DIR, 'project'), project, { recursive: true });
  const git = gitIn(project, context);
  await git(['init', '-q', '-b', 'demo']);
  await git(['config', 'user.name', 'ralph demo']);
  await git(['config', 'user.email', 'demo@ralph.invalid']);
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'Sample project for ralph demo']);
  return project;
}

function gitIn(project: string, context: CliContext): (args: string[]) => Promise<void> {
  return async (args) => {
    const result = await runToCompletion('git', args, {
      cwd: project,
      env: context.env,
      timeoutMs: 30_000,
    });
    if (result.exitCode !== 0) {
      throw new RalphError(
        'IO',
        `git ${args[0] ?? ''} failed in ${project}: ${result.stderr.trim()}`,
        {
          hint: 'ralph demo needs git on PATH',
        },
      );
    }
  };
}
