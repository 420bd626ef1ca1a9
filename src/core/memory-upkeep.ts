import { relative } from 'node:path';
import type { Story } from '../plan/types.js';
import { normaliseMemoryFile } from '../state/memory-file.js';
import { RalphError } from '../util/errors.js';
import type { LoopContext } from './loop-types.js';
import { readMemorySection } from './memory-section.js';

/**
 * The engine's two touches of memories.md: the section for the prompt before an iteration, and
 * the tidy-up of what the agent appended after it. Both turn a bad file into a warning: a
 * learning log must not stop a run.
 */

/** The memories section to append to `story`'s prompt ('' when the run has no memory settings). */
export async function memoriesForPrompt(ctx: LoopContext, story: Story): Promise<string> {
  const settings = ctx.options.memory;
  if (settings === undefined) return '';
  const shown = (path: string): string => relative(ctx.options.cwd, path) || '.';
  const section = await readMemorySection(settings, story, shown);
  if (section.warning !== undefined) {
    await ctx.emit({
      type: 'warning',
      at: ctx.deps.clock.now().toISOString(),
      message: section.warning,
    });
  }
  return section.text;
}

/** Normalises the entries the agent added to either memories.md during the iteration. */
export async function tidyMemories(ctx: LoopContext): Promise<void> {
  const settings = ctx.options.memory;
  if (settings === undefined) return;
  const files = [settings.files.feature, settings.files.project].filter(
    (file, index, all): file is string => file !== undefined && all.indexOf(file) === index,
  );
  for (const file of files) {
    try {
      await normaliseMemoryFile(file, ctx.deps.clock.now());
    } catch (error) {
      if (!(error instanceof RalphError)) throw error;
      await ctx.emit({
        type: 'warning',
        at: ctx.deps.clock.now().toISOString(),
        message: `memories not tidied, the file is left as it is: ${error.message}${error.hint === undefined ? '' : ` (${error.hint})`}`,
      });
    }
  }
}
