import type { Config, ConfigFile } from '../state/config-schema.js';
import { loadConfig, type ConfigSource } from '../state/config.js';
import type { HybridMapping } from '../state/hybrid-config.js';
import { findGitRepo } from '../state/git.js';
import { resolveLoopDir, type ResolvedLoopDir } from '../state/paths.js';
import { homeDirOf, writeLine, type CliContext } from './context.js';

export interface CommandSettings {
  config: Config;
  /** Where each key's value came from; a value still at its default was not chosen by anyone. */
  sources: Record<string, ConfigSource>;
  /** Ralph Hybrid keys that were read as ralph's (`ralph validate` lists them). */
  mapped: HybridMapping[];
}

/**
 * Loads the configuration every command shares: files found from the repository around cwd,
 * RALPH_* environment, and the command's own flags. Config warnings go to stderr so that
 * `--json` output on stdout stays parseable.
 */
export async function loadCommandSettings(
  context: CliContext,
  flags: ConfigFile = {},
): Promise<CommandSettings> {
  const repo = await findGitRepo(context.cwd).catch(() => undefined);
  const loaded = await loadConfig({
    homeDir: homeDirOf(context),
    env: context.env,
    repoRoot: repo?.root,
    flags,
  });
  for (const warning of loaded.warnings) writeLine(context.stderr, `ralph: warning: ${warning}`);
  return { config: loaded.config, sources: loaded.sources, mapped: loaded.mapped };
}

export async function loadCommandConfig(context: CliContext): Promise<Config> {
  return (await loadCommandSettings(context)).config;
}

/** The config and the loop directory a command works on: DIR as given, else .ralph/<branch>/. */
export async function loadCommandLoop(
  context: CliContext,
  dir: string | undefined,
): Promise<{ config: Config; loop: ResolvedLoopDir }> {
  const config = await loadCommandConfig(context);
  const loop = await resolveLoopDir({
    dir,
    cwd: context.cwd,
    protectedBranches: config.protectedBranches,
  });
  return { config, loop };
}
