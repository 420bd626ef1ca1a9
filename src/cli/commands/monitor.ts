import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import { randomBytes } from 'node:crypto';
import { isLoopback, MIN_TOKEN_LENGTH, tokenProblem } from '../../monitor/web/auth.js';
import { findGitRepo } from '../../state/git.js';
import { RalphError } from '../../util/errors.js';
import { homeDirOf, writeLine, type CliContext, type SetExitCode } from '../context.js';
import { userStateDir } from '../../state/user-state.js';
import { reportError } from '../exit.js';
import { useColor } from '../output.js';
import { renderAgentLine } from './log-render.js';
import { resolveWatchTarget } from './watch-target.js';

export const DEFAULT_WEB_PORT = 8321;

export function monitorCommand(context: CliContext, setExitCode: SetExitCode) {
  return new Command('monitor')
    .description(
      'Watch a loop live in the terminal: iteration, state, story and model, times, stories\n' +
        'passing, calls this hour, cost and tokens, breaker, usage-limit wait, the last tool calls\n' +
        'and recent events (q or Ctrl+C quits; the loop keeps running). With --web, serve a\n' +
        'dashboard of every loop in the repository on http://127.0.0.1 instead.',
    )
    .argument('[dir]', 'loop directory (default: .ralph/<git branch>/)')
    .option('--web', 'serve the web dashboard instead of the terminal view')
    .option('--port <n>', `web: port (default ${DEFAULT_WEB_PORT}; 0 picks a free one)`, parsePort)
    .option('--host <address>', 'web: address to listen on (default 127.0.0.1)')
    .option(
      '--token [token]',
      'web: require this token on every request (required off loopback; without a value one is\n' +
        'generated); also RALPH_MONITOR_TOKEN',
    )
    .option('--once', 'terminal: print the current state once and exit')
    .action(async (dir, options) => {
      try {
        if (options.web !== true) {
          const target = await resolveWatchTarget(context, dir);
          if (options.once !== true && process.stdout.isTTY) forgetCiForInk();
          // Loaded here, and only here: no other command pays for ink and React (design.md §1).
          const { runMonitorTui } = await import('../../monitor/tui/run.js');
          await runMonitorTui({
            loopDir: target.dir,
            name: target.name,
            color: useColor(context),
            once: options.once === true,
            write: (text) => context.stdout.write(text),
            // ink needs the real terminal (size, raw mode), which only the process has.
            stdout: process.stdout,
            stdin: process.stdin,
          });
          return;
        }
        const host = options.host ?? '127.0.0.1';
        const token =
          options.token === true
            ? randomBytes(18).toString('base64url')
            : (options.token ?? nonEmpty(context.env.RALPH_MONITOR_TOKEN));
        const weak = token === undefined ? undefined : tokenProblem(token);
        if (weak !== undefined) {
          const source = typeof options.token === 'string' ? '--token' : 'RALPH_MONITOR_TOKEN';
          throw new RalphError('USAGE', `${source} is too weak to guard the dashboard: ${weak}`, {
            hint: `Use at least ${MIN_TOKEN_LENGTH} characters without spaces, e.g. $(openssl rand -base64 18), or pass --token alone and ralph generates one.`,
          });
        }
        if (!isLoopback(host) && token === undefined) {
          throw new RalphError(
            'USAGE',
            `--host ${host} is reachable from other machines: it needs --token`,
            {
              hint: 'Pass --token (a random one is generated) or --token <secret>, or keep the default --host 127.0.0.1.',
            },
          );
        }
        const dirs = dir === undefined ? [] : [(await resolveWatchTarget(context, dir)).dir];
        const repo = await findGitRepo(context.cwd).catch(() => undefined);
        const { startDashboard } = await import('../../monitor/web/server.js');
        const dashboard = await startDashboard({
          repoRoot: repo?.root,
          dirs,
          host,
          port: options.port ?? DEFAULT_WEB_PORT,
          token,
          renderLog: renderAgentLine,
          stateDir: userStateDir(context.env, homeDirOf(context)),
        }).catch((error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
            throw new RalphError(
              'USAGE',
              `cannot listen on ${host}:${options.port ?? DEFAULT_WEB_PORT}: ${code}`,
              {
                hint: '--port 0 picks a free port.',
                cause: error,
              },
            );
          }
          throw error;
        });
        const url =
          token === undefined
            ? dashboard.url
            : `${dashboard.url}?token=${encodeURIComponent(token)}`;
        writeLine(context.stdout, `ralph: dashboard at ${url}`);
        writeLine(context.stderr, 'ralph: Ctrl+C stops the dashboard (the loops keep running)');
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await dashboard.close();
      } catch (error) {
        setExitCode(reportError(error, context, false));
      }
    });
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function parsePort(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || number > 65535) {
    throw new InvalidArgumentError(`expected a port number 0-65535, got ${JSON.stringify(value)}`);
  }
  return number;
}

/**
 * ink draws only the final frame when it thinks it runs in CI, and it decides once, when it
 * loads, from CI and CONTINUOUS_INTEGRATION. Someone who exports CI=true in their shell (or a
 * dev container that does) and opens the live view in a terminal would watch a blank screen
 * until they quit. This process only draws the monitor and starts no children, so dropping the
 * two variables here changes nothing else.
 */
function forgetCiForInk(): void {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
}
