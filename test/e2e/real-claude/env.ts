import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

let cached: string | undefined;

/**
 * The pinned CLI's native binary. We run the platform package's file directly: it starts in
 * ~10 ms and does not depend on the postinstall step that links `bin/claude.exe` (facts §1).
 */
export function claudeBinary(): string {
  if (cached !== undefined) return cached;
  const base = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`;
  for (const name of [base, `${base}-musl`]) {
    try {
      const file = join(dirname(require.resolve(`${name}/package.json`)), 'claude');
      if (existsSync(file)) return (cached = file);
    } catch {
      // Not installed for this platform; try the next candidate.
    }
  }
  throw new Error(`${base} is not installed: run npm ci (it is an optional dependency)`);
}

/** The version the platform package declares, e.g. "2.1.330". */
export function claudeVersion(): string {
  const pkg = require(join(dirname(claudeBinary()), 'package.json')) as { version: string };
  return pkg.version;
}

export interface ClaudeEnvOptions {
  /** The fake Messages API, e.g. `fake.url`. */
  baseUrl: string;
  /** A per-test folder; HOME, config and temp dirs are created inside it. */
  root: string;
  /** Default 1: the default of 10 retries takes about three minutes (facts §6). */
  maxRetries?: number;
  /** Sets API_TIMEOUT_MS, for tests of a hanging server. */
  apiTimeoutMs?: number;
  extra?: Record<string, string>;
}

/**
 * A complete environment for the CLI, built from nothing rather than from process.env, so
 * nothing of the developer's (or an enclosing Claude Code session's CLAUDECODE, ANTHROPIC_*,
 * ~/.claude) leaks in, and the CLI writes only under `root` (facts §2, gotcha 6).
 */
export function claudeEnv(options: ClaudeEnvOptions): Record<string, string> {
  const home = join(options.root, 'home');
  const config = join(options.root, 'claude-config');
  const tmp = join(options.root, 'tmp');
  for (const dir of [home, config, tmp]) mkdirSync(dir, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: config,
    CLAUDE_CODE_TMPDIR: tmp,
    TMPDIR: tmp,
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'sk-test-dummy',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // Tests run as root; without it --dangerously-skip-permissions exits 1 (gotcha 1).
    IS_SANDBOX: '1',
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries ?? 1),
    NO_COLOR: '1',
    ...(options.apiTimeoutMs === undefined ? {} : { API_TIMEOUT_MS: String(options.apiTimeoutMs) }),
    ...options.extra,
  };
  // The Bash tool picks its shell from SHELL; keep the developer's if there is one.
  if (process.env.SHELL !== undefined) env.SHELL = process.env.SHELL;
  return env;
}

export interface Sandbox {
  /** Holds `repo/` and whatever claudeEnv creates. Real path: the CLI reports real paths. */
  root: string;
  /** A git repository with one commit, so the CLI and ralph see a normal project. */
  repo: string;
  cleanup(): void;
}

export function makeSandbox(prefix = 'ralph-claude-'): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const repo = join(root, 'repo');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  git(
    '-c',
    'user.name=test',
    '-c',
    'user.email=test@example.com',
    '-c',
    'commit.gpgsign=false',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'init',
  );
  return {
    root,
    repo,
    cleanup: () => {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * An ANTHROPIC_AUTH_TOKEN that makes the CLI treat ANTHROPIC_BASE_URL as a Claude gateway (an
 * unsigned JWT whose `aud` is "claude-gateway"; the CLI reads the claim, it does not verify it).
 * In that mode it reads the usage-window headers and prints rate_limit_event lines, as it does
 * for a claude.ai subscription; with an API key it prints none. Use it instead of
 * ANTHROPIC_API_KEY (remove that from the environment).
 */
export function gatewayToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ aud: 'claude-gateway', sub: 'ralph-test' })}.x`;
}
