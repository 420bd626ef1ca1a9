import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../state/atomic-write.js';
import { RalphError } from '../util/errors.js';

/**
 * `ralph setup --commands`: the planning slash commands for Claude Code (/ralph-plan,
 * /ralph-amend, /ralph-prd) as Markdown files in a commands folder. Idempotent, and a file the
 * person edited is theirs: ralph records the hash of what it wrote in `.ralph-commands.json`
 * beside the files, and replaces a file only while it still has that hash (or with `force`).
 */

export const SLASH_COMMANDS = ['ralph-plan', 'ralph-amend', 'ralph-prd'] as const;
export const MANIFEST_NAME = '.ralph-commands.json';
const TEMPLATES = new URL('../../templates/commands/', import.meta.url);

const manifestSchema = z.looseObject({
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});

export type CommandFileAction =
  /** New file. */
  | 'created'
  /** ralph's older text, replaced by the current one. */
  | 'updated'
  | 'unchanged'
  /** The person changed it: left alone (`force` replaces it). */
  | 'kept'
  /** The person's file, replaced because of `force`. */
  | 'replaced';

export interface CommandFileResult {
  name: string;
  path: string;
  action: CommandFileAction;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

async function readManifest(path: string): Promise<Record<string, string>> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  try {
    const parsed = manifestSchema.safeParse(JSON.parse(text));
    // A damaged manifest only costs the record: every differing file then counts as the person's.
    return parsed.success ? parsed.data.files : {};
  } catch {
    return {};
  }
}

/** The command files' text, with `{{ralph}}` replaced by the way to run this ralph. */
export async function slashCommandTexts(cliPrefix: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const name of SLASH_COMMANDS) {
    const template = await readFile(new URL(`${name}.md`, TEMPLATES), 'utf8');
    texts.set(name, template.replaceAll('{{ralph}}', cliPrefix));
  }
  return texts;
}

export async function installSlashCommands(
  dir: string,
  cliPrefix: string,
  options: { force?: boolean | undefined } = {},
): Promise<CommandFileResult[]> {
  if (/[\r\n`]/.test(cliPrefix)) {
    throw new RalphError('USAGE', 'the ralph command for slash commands contains a newline or `');
  }
  await mkdir(dir, { recursive: true });
  const manifestPath = join(dir, MANIFEST_NAME);
  const recorded = await readManifest(manifestPath);
  const written: Record<string, string> = { ...recorded };
  const results: CommandFileResult[] = [];
  for (const [name, text] of await slashCommandTexts(cliPrefix)) {
    const file = `${name}.md`;
    const path = join(dir, file);
    const existing = await readFile(path, 'utf8').catch(() => undefined);
    const action = decide(existing, text, recorded[file], options.force === true);
    if (action === 'created' || action === 'updated' || action === 'replaced') {
      await writeFileAtomic(path, text);
    }
    if (action !== 'kept') written[file] = sha256(text);
    results.push({ name, path, action });
  }
  const manifest = `${JSON.stringify({ files: written }, null, 2)}\n`;
  const before = await readFile(manifestPath, 'utf8').catch(() => undefined);
  if (before !== manifest) await writeFileAtomic(manifestPath, manifest);
  return results;
}

function decide(
  existing: string | undefined,
  text: string,
  recordedHash: string | undefined,
  force: boolean,
): CommandFileAction {
  if (existing === undefined) return 'created';
  if (existing === text) return 'unchanged';
  if (recordedHash !== undefined && sha256(existing) === recordedHash) return 'updated';
  return force ? 'replaced' : 'kept';
}
