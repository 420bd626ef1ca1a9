import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { LOOP_ID_PATTERN } from './paths.js';

/**
 * The state file of one in-session loop, `.claude/ralph-loop-{id}.local.md`: YAML front matter
 * between the first two `---` lines, then the prompt. The prompt is never parsed: everything after
 * the closing delimiter line (and the one blank line we write after it) is the body, byte for
 * byte, so a prompt holding `---`, front-matter look-alikes or quotes survives (the bash original
 * cut prompts at their first `---`).
 */

export const sessionLoopStateSchema = z.object({
  loop_id: z.string().regex(LOOP_ID_PATTERN, 'must be 8 lowercase letters or digits'),
  // A file written by hand may say `session_id:` (null): that is unclaimed too.
  session_id: z
    .string()
    .nullable()
    .transform((value) => value ?? ''),
  active: z.boolean(),
  iteration: z.int().min(1),
  max_iterations: z.int().min(0),
  completion_promise: z.string().nullable(),
  started_at: z.string().min(1),
  /** When the owning session claimed the loop (ralph's addition; absent while unclaimed). */
  claimed_at: z.string().optional(),
  /** The owner's transcript: its modification time tells `ralph loop list` the session is alive. */
  transcript_path: z.string().optional(),
});
export type SessionLoopState = z.output<typeof sessionLoopStateSchema>;

export interface SessionLoopFile {
  state: SessionLoopState;
  /** The prompt, exactly as given to `ralph loop start`. */
  body: string;
}

export type ParsedSessionLoopFile =
  { ok: true; file: SessionLoopFile } | { ok: false; reason: string };

const OPENING = /^---\r?\n/;
const CLOSING = /^---[ \t]*\r?$/m;

export function parseSessionLoopFile(text: string): ParsedSessionLoopFile {
  const opening = OPENING.exec(text);
  if (opening === null)
    return { ok: false, reason: 'no front matter (the file must start with ---)' };
  const rest = text.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (closing === null) return { ok: false, reason: 'front matter is not closed by a --- line' };
  const yamlText = rest.slice(0, closing.index);
  let afterClosing = rest.slice(closing.index + closing[0].length);
  // The closing line's own line break, then the one blank separator line serialise writes.
  afterClosing = afterClosing.replace(/^\n/, '');
  const body = afterClosing.replace(/^\r?\n/, '');
  let data: unknown;
  try {
    data = parseYaml(yamlText, { uniqueKeys: true });
  } catch (error) {
    return { ok: false, reason: `front matter is not valid YAML: ${firstLine(error)}` };
  }
  const parsed = sessionLoopStateSchema.safeParse(data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') ?? '';
    return {
      ok: false,
      reason: `front matter field ${field === '' ? '(root)' : field}: ${issue?.message ?? 'invalid'}`,
    };
  }
  if (body.trim() === '')
    return { ok: false, reason: 'the prompt (the text after the front matter) is empty' };
  return { ok: true, file: { state: parsed.data, body } };
}

/** Writes what parseSessionLoopFile reads back unchanged, whatever the prompt and promise contain. */
export function serialiseSessionLoopFile(file: SessionLoopFile): string {
  const { state } = file;
  const lines = [
    `loop_id: ${quote(state.loop_id)}`,
    `session_id: ${quote(state.session_id)}`,
    `active: ${String(state.active)}`,
    `iteration: ${state.iteration}`,
    `max_iterations: ${state.max_iterations}`,
    `completion_promise: ${state.completion_promise === null ? 'null' : quote(state.completion_promise)}`,
    `started_at: ${quote(state.started_at)}`,
  ];
  if (state.claimed_at !== undefined) lines.push(`claimed_at: ${quote(state.claimed_at)}`);
  if (state.transcript_path !== undefined)
    lines.push(`transcript_path: ${quote(state.transcript_path)}`);
  return `---\n${lines.join('\n')}\n---\n\n${file.body}`;
}

/**
 * A YAML double-quoted scalar. JSON is nearly YAML, but YAML folds U+2028/U+2029/U+0085 and
 * strips other control characters inside quotes, so those are written as \u escapes.
 */
export function quote(value: string): string {
  return JSON.stringify(value).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
