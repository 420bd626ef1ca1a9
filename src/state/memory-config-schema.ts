import { choice, section, wholeNumber } from './config-setting.js';
import type { Resolved } from './config-setting.js';

export const MEMORY_INJECTION_MODES = ['auto', 'manual', 'none'] as const;
export type MemoryInjection = (typeof MEMORY_INJECTION_MODES)[number];

/**
 * The `memory` section of config.yaml: how much of memories.md (the project's and the
 * feature's) goes into each iteration's prompt (src/core/memory-section.ts).
 */
export const MEMORY_SETTINGS = section(
  'Memories (memories.md of the project and of the loop directory) in the iteration prompt.',
  {
    tokenBudget: wholeNumber(0, {
      description:
        "Most tokens (about 4 characters each) the prompt's memories section may take; the feature's entries come first, then the project's, newest first in each.",
      zeroMeans: 'no memories in the prompt, only where the files are',
      default: 2000,
    }),
    injection: choice(MEMORY_INJECTION_MODES, {
      description:
        'auto: every story gets the memories its tags match (all of them when it has no tags); manual: only stories with a "tags" field get memories, the others are told where the files are; none: the prompt says nothing about memories.',
      default: 'auto',
    }),
  },
);

export type MemorySettings = Resolved<typeof MEMORY_SETTINGS.section>;
