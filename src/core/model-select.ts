import type { Story, TaskList } from '../plan/types.js';
import type { Profile } from '../state/config-schema.js';

// The profiles are a config setting's choices (state/config-schema.ts PROFILES).
export type { Profile };

/** The model a profile runs stories with: quality buys capability, budget buys cost. */
export const PROFILE_MODELS: Readonly<Record<Profile, string>> = {
  quality: 'opus',
  balanced: 'sonnet',
  budget: 'haiku',
};

/** feature_list.json categories (Ralph Loop v2): setup and core work need the strongest model. */
export const CATEGORY_MODELS: Readonly<Record<string, string>> = {
  setup: 'opus',
  functional: 'opus',
  ui: 'sonnet',
  verification: 'sonnet',
  testing: 'sonnet',
  documentation: 'haiku',
};

export interface ModelChoice {
  model: string | undefined;
  /** Which rule chose it, for --dry-run and the logs. */
  source: 'story' | 'cli' | 'profile' | 'category' | 'default_model' | 'agent default';
}

export interface ModelSettings {
  /** -m/--model (or config `model`). */
  model: string | undefined;
  /** Only a profile the user chose; the built-in default profile must not hide category defaults. */
  profile: Profile | undefined;
}

/** design.md §4: story model > --model > profile > category default > default_model > agent default. */
export function selectModel(
  story: Story,
  taskList: TaskList,
  settings: ModelSettings,
): ModelChoice {
  if (story.model !== undefined && story.model !== '')
    return { model: story.model, source: 'story' };
  if (settings.model !== undefined && settings.model !== '')
    return { model: settings.model, source: 'cli' };
  if (settings.profile !== undefined)
    return { model: PROFILE_MODELS[settings.profile], source: 'profile' };
  const byCategory =
    story.category === undefined ? undefined : CATEGORY_MODELS[story.category.toLowerCase()];
  if (byCategory !== undefined) return { model: byCategory, source: 'category' };
  if (taskList.defaultModel !== undefined && taskList.defaultModel !== '') {
    return { model: taskList.defaultModel, source: 'default_model' };
  }
  return { model: undefined, source: 'agent default' };
}
