import { z } from 'zod';

/**
 * zod schemas of the task list formats (design.md §3). They check the fields ralph reads and
 * let every other field through untouched (looseObject), because users and other tools keep
 * their own fields in these files. Absent optional fields are fine; a present field of the
 * wrong type is an error, since guessing what `"passes": "true"` means is how a loop marks
 * work done that is not. Plain objects, arrays and unions only, so `z.toJSONSchema` exports
 * them for editors.
 */

const storyId = z
  .union([z.string().min(1), z.int()])
  .describe('Unique id of the story, e.g. "STORY-001", "STORY-002.1", "US-001" or "F12"');

const strings = z.array(z.string());

/** Names accepted for a string priority; `critical` appears in real files above `high`. */
export const PRIORITY_WORDS = ['critical', 'high', 'medium', 'low'] as const;

const priority = z
  .union([z.number(), z.enum(PRIORITY_WORDS)])
  .describe('1 = highest; or "high" (1), "medium" (2), "low" (3), "critical" (0)');

const passes = z.boolean().describe('true once the story is done and verified');

const notes = z
  .union([z.string(), strings, z.null()])
  .describe('Free text the agent leaves for the next iteration (an array is read as lines)');

const dependsOn = strings.describe('Ids of stories that must pass before this one starts');

const beforeAfter = z
  .looseObject({
    before: z.unknown().optional().describe('The value before the correction'),
    after: z.unknown().optional().describe('The value after it'),
  })
  .describe('One corrected field');

/** What `ralph amend correct` records; other fields a tool adds are kept as they are. */
export const amendmentChangesSchema = z.looseObject({
  title: beforeAfter.optional(),
  description: beforeAfter.optional(),
  acceptanceCriteria: beforeAfter.optional(),
  passesReset: z.boolean().optional().describe('true when the correction reset passes to false'),
});

export const amendmentSchema = z.looseObject({
  id: z.string().describe('Amendment id, e.g. "AMD-001"; never reused within a feature'),
  type: z.enum(['add', 'correct', 'remove']).describe('What the amendment did to the story'),
  timestamp: z.string().optional().describe('ISO 8601 time of the amendment'),
  reason: z.string().optional().describe('Why the story was amended'),
  changes: amendmentChangesSchema
    .optional()
    .describe('For corrections: each changed field before and after, and whether passes was reset'),
});

/** Fields shared by every format's items; readers map them onto the Story model. */
const commonItemFields = {
  title: z.string().optional().describe('Short title; defaults to the first line of description'),
  name: z.string().optional().describe('Used as the title when there is none'),
  description: z.string().optional().describe('What to build'),
  acceptanceCriteria: strings.optional().describe('Checks that must hold for the story to pass'),
  steps: strings.optional().describe('Steps to verify the feature (feature_list.json)'),
  priority: priority.optional(),
  passes: passes.optional(),
  notes: notes.optional(),
  dependsOn: dependsOn.optional(),
  dependencies: dependsOn.optional(),
  model: z.string().optional().describe('Model for this story; overrides every other setting'),
  category: z.string().optional().describe('Category, e.g. "functional" or "style"'),
  spec_ref: z.string().optional().describe('Section of spec.md this story implements'),
  mcpServers: strings
    .optional()
    .describe('MCP servers for this story: absent = your MCP config, [] = none'),
  amendment: amendmentSchema.optional().describe('Set when `ralph amend` added or changed it'),
  verify: z
    .union([z.string().min(1), z.array(z.string().min(1))])
    .optional()
    .describe(
      'Shell command(s) ralph runs in the repository when the agent claims the story; all must exit 0 for it to pass',
    ),
  blocked: z
    .union([z.string(), z.boolean()])
    .optional()
    .describe(
      'Parked: the loop skips the story (ralph writes the reason after repeated rejections); remove it to try again',
    ),
  allowTestChanges: z
    .boolean()
    .optional()
    .describe('true lets this story delete tests, skip them or remove assertions'),
  tags: z
    .union([z.string(), strings])
    .optional()
    .describe(
      'Memory tags: the story gets only the memories.md entries that share one (a string is split at commas)',
    ),
};

export const prdStorySchema = z.looseObject({
  id: storyId,
  ...commonItemFields,
});

export const featureSchema = z.looseObject({
  id: storyId.optional(),
  ...commonItemFields,
  completed_iteration: z
    .union([z.number(), z.null()])
    .optional()
    .describe('Iteration that completed the feature'),
});

const createdAt = z.string().optional().describe('ISO 8601 creation time');
const description = z.string().optional().describe('What the feature as a whole is about');

export const prdHybridSchema = z
  .looseObject({
    description,
    createdAt,
    userStories: z.array(prdStorySchema).optional().describe('The stories, in any order'),
    stories: z.array(prdStorySchema).optional().describe('Older name for userStories'),
  })
  .describe('ralph-hybrid prd.json');

export const prdSnarktankSchema = z
  .looseObject({
    project: z.string().optional().describe('Project name'),
    name: z.string().optional().describe('Project name (alternative to project)'),
    branchName: z.string().optional().describe('Git branch the work happens on'),
    description,
    createdAt,
    userStories: z.array(prdStorySchema).optional().describe('The stories, in any order'),
    stories: z.array(prdStorySchema).optional().describe('Older name for userStories'),
  })
  .describe('snarktank-style prd.json');

export const featureListObjectSchema = z
  .looseObject({
    task_name: z.string().optional().describe('Name of the task'),
    project: z.string().optional().describe('Project name'),
    description,
    default_model: z.string().optional().describe('Model for features that name none'),
    features: z.array(featureSchema).describe('The features, in any order'),
  })
  .describe('feature_list.json (Ralph Loop v2)');

export const featureListArraySchema = z
  .array(featureSchema)
  .describe('feature_list.json as a bare array (Anthropic autonomous-coding harness)');

export type PriorityWord = (typeof PRIORITY_WORDS)[number];
export type PrdStory = z.infer<typeof prdStorySchema>;
export type Feature = z.infer<typeof featureSchema>;
export type TaskListItem = PrdStory | Feature;
