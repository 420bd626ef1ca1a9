import { describe, expect, it } from 'vitest';
import type { Story, TaskList } from '../plan/types.js';
import { selectModel } from './model-select.js';

function story(overrides: Partial<Story> = {}): Story {
  return {
    index: 0,
    id: 'F1',
    hasId: true,
    title: 't',
    description: '',
    acceptanceCriteria: [],
    priority: 1,
    passes: false,
    notes: undefined,
    dependsOn: [],
    model: undefined,
    category: undefined,
    mcpServers: undefined,
    specRef: undefined,
    amendment: undefined,
    ...overrides,
  };
}

function list(defaultModel?: string): TaskList {
  return {
    format: 'feature-list-object',
    name: undefined,
    description: undefined,
    branchName: undefined,
    defaultModel,
    stories: [],
  };
}

const none = { model: undefined, profile: undefined };

describe('selectModel', () => {
  it('story model beats everything', () => {
    expect(
      selectModel(story({ model: 'haiku', category: 'setup' }), list('x'), {
        model: 'opus',
        profile: 'quality',
      }),
    ).toEqual({ model: 'haiku', source: 'story' });
  });
  it('--model beats profile', () => {
    expect(selectModel(story(), list(), { model: 'claude-opus-4-5', profile: 'budget' })).toEqual({
      model: 'claude-opus-4-5',
      source: 'cli',
    });
  });
  it('profile beats category', () => {
    expect(
      selectModel(story({ category: 'setup' }), list(), { model: undefined, profile: 'budget' }),
    ).toEqual({
      model: 'haiku',
      source: 'profile',
    });
  });
  it.each([
    ['setup', 'opus'],
    ['functional', 'opus'],
    ['UI', 'sonnet'],
    ['verification', 'sonnet'],
    ['testing', 'sonnet'],
    ['documentation', 'haiku'],
  ])('category %s → %s', (category, model) => {
    expect(selectModel(story({ category }), list('default'), none)).toEqual({
      model,
      source: 'category',
    });
  });
  it('default_model for unknown categories, then the agent default', () => {
    expect(selectModel(story({ category: 'style' }), list('sonnet'), none)).toEqual({
      model: 'sonnet',
      source: 'default_model',
    });
    expect(selectModel(story(), list(), none)).toEqual({
      model: undefined,
      source: 'agent default',
    });
  });
});
