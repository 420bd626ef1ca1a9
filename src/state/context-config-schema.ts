import * as z from 'zod';
import { section, setting, text } from './config-setting.js';

/** The default completion promise: the Ralph Hybrid spec's, and what ralph's template asks for. */
export const DEFAULT_COMPLETION_PROMISE = '<promise>COMPLETE</promise>';

/** context.tokenBudget's default (the reasons are below). */
export const DEFAULT_TOKEN_BUDGET = 16_000;

/**
 * What each iteration's prompt may hold (src/core/prompt-budget.ts). 16,000 tokens (≈ 64 KB of
 * text at ≈ 4 characters a token) is under a tenth of Claude's 200k-token window: with its own
 * system prompt and tools (≈ 20k tokens) the agent keeps most of its context for the code it
 * reads, and after the template and the story (≈ 2k tokens) the newest ≈ 50 entries of a typical
 * progress.txt still fit.
 */
export const CONTEXT_SETTINGS = section("What each iteration's prompt carries.", {
  tokenBudget: setting(z.int().min(1000), {
    requirement: 'a whole number ≥ 1000',
    description:
      "Tokens (≈ 4 characters each) the prompt may use: the template and the story always go in; progress.txt's Codebase Patterns section and its newest entries fill the rest, and the prompt names the file for the older ones. `run --dry-run` and `validate` warn when the template and the story alone are over it.",
    default: DEFAULT_TOKEN_BUDGET,
  }),
});

/** How the agent says the whole task list is done (the spec's `completion.promise`). */
export const COMPLETION_SETTINGS = section('How the agent says that every story is done.', {
  promise: text({
    description:
      "The text that, in the agent's final message, claims every story passes; `{{completion.promise}}` in the prompt template is replaced by it. Extra patterns: completionPatterns.",
    requirement: 'a non-empty string',
    default: DEFAULT_COMPLETION_PROMISE,
  }),
});
