import * as z from 'zod';

/**
 * The structured answers the agent leaves in `ralph verify`'s and `ralph debug`'s files: a fenced
 * JSON block tagged for ralph, e.g.
 *
 *     ```ralph-verdict
 *     {"status": "NEEDS_WORK", "summary": "2 of 3 goals met; the export is not wired"}
 *     ```
 *
 * A tagged block rather than a "Status:" line because prose around it can say "VERIFIED" in any
 * sentence, and a JSON object is checked field by field (zod). The last block counts: an agent
 * that revises its report appends or rewrites, and the final word is the one at the end.
 */

export const VERIFY_TAG = 'ralph-verdict';
export const DEBUG_TAG = 'ralph-debug-status';

export const VERIFY_STATUSES = ['VERIFIED', 'NEEDS_WORK', 'BLOCKED'] as const;
export type VerifyStatus = (typeof VERIFY_STATUSES)[number];

export const verifyVerdictSchema = z.object({
  status: z.enum(VERIFY_STATUSES),
  summary: z.string().min(1),
  goals: z.object({ total: z.number().int().min(0), achieved: z.number().int().min(0) }).optional(),
  humanTesting: z.array(z.string()).optional(),
});
export type VerifyVerdict = z.infer<typeof verifyVerdictSchema>;

export const DEBUG_STATES = ['ROOT_CAUSE_FOUND', 'DEBUG_COMPLETE', 'CHECKPOINT_REACHED'] as const;
export type DebugState = (typeof DEBUG_STATES)[number];
/** What ralph writes in the block when a session starts; an agent that leaves it ended nowhere. */
export const DEBUG_PENDING = 'IN_PROGRESS';

export const debugStatusSchema = z.object({
  state: z.enum(DEBUG_STATES),
  summary: z.string().min(1),
  rootCause: z.string().optional(),
});
export type DebugStatus = z.infer<typeof debugStatusSchema>;

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The last `tag` block of `text`, checked by `schema`; a problem a person can act on otherwise. */
export function readTaggedBlock<T>(text: string, tag: string, schema: z.ZodType<T>): Parsed<T> {
  const blocks = taggedBlocks(text, tag);
  const last = blocks.at(-1);
  if (last === undefined) return { ok: false, problem: `no \`\`\`${tag} block` };
  let json: unknown;
  try {
    json = JSON.parse(last.body);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `the \`\`\`${tag} block is not JSON (${why})` };
  }
  const checked = schema.safeParse(json);
  if (!checked.success) {
    const issues = checked.error.issues
      .map((issue) => `${issue.path.join('.') || '(block)'}: ${issue.message}`)
      .join('; ');
    return { ok: false, problem: `the \`\`\`${tag} block is not valid: ${issues}` };
  }
  return { ok: true, value: checked.data };
}

export interface TaggedBlock {
  body: string;
  /** Character offsets of the whole block, fences included. */
  start: number;
  end: number;
}

/** Every fenced block opened by a line of exactly ```tag (closing fence: a line of ```). */
export function taggedBlocks(text: string, tag: string): TaggedBlock[] {
  const blocks: TaggedBlock[] = [];
  const open = new RegExp(`^[ \\t]*\`\`\`[ \\t]*${tag}[ \\t]*$`, 'gm');
  for (let match = open.exec(text); match !== null; match = open.exec(text)) {
    const bodyStart = match.index + match[0].length + 1;
    const close = /^[ \t]*```[ \t]*$/m.exec(text.slice(bodyStart));
    if (close === null) break;
    const end = bodyStart + close.index + close[0].length;
    blocks.push({ body: text.slice(bodyStart, bodyStart + close.index), start: match.index, end });
    open.lastIndex = end;
  }
  return blocks;
}

/** `text` with its last `tag` block replaced by one holding `json` (appended when it has none). */
export function replaceLastBlock(text: string, tag: string, json: unknown): string {
  const block = `\`\`\`${tag}\n${JSON.stringify(json)}\n\`\`\``;
  const last = taggedBlocks(text, tag).at(-1);
  if (last === undefined) return `${text.trimEnd()}\n\n${block}\n`;
  return `${text.slice(0, last.start)}${block}${text.slice(last.end)}`;
}
