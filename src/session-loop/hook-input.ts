import * as z from 'zod';

/**
 * What Claude Code writes on a Stop hook's stdin (claude-code-facts.md §5). Only the fields the
 * loop needs are checked; the rest (prompt_id, effort, background_tasks, …) varies between
 * versions and passes through unchecked.
 */
export const stopHookInputSchema = z.looseObject({
  session_id: z.string().min(1),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
  // Newer versions send the final text directly; older ones only the transcript path.
  last_assistant_message: z.string().nullable().optional(),
});
export type StopHookInput = z.output<typeof stopHookInputSchema>;

/** The JSON a Stop hook prints on stdout (exit 0). No `decision` means: let the session stop. */
export interface StopHookOutput {
  decision?: 'block';
  reason?: string;
  systemMessage?: string;
}
