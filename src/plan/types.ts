/**
 * The one internal model of a task list, whatever file format it came from (design.md §3).
 * Readers map each format onto it; the writer maps changes back onto the original text so that
 * unknown fields, key order and indentation survive.
 */

export type TaskListFormat =
  /** ralph-hybrid prd.json: `{description, createdAt, userStories:[…]}`, ids STORY-NNN(.D). */
  | 'prd-hybrid'
  /** snarktank-style prd.json: `{project | name, branchName, userStories:[…]}`, ids US-001. */
  | 'prd-snarktank'
  /** Ralph Loop v2 feature_list.json: `{task_name, default_model, features:[…]}`. */
  | 'feature-list-object'
  /** Anthropic's bare top-level array `[{category, description, steps, passes}]`. */
  | 'feature-list-array';

export interface StoryAmendment {
  id: string;
  type: 'add' | 'correct' | 'remove';
  timestamp?: string;
  reason?: string;
}

export interface Story {
  /** Position in the file (0-based); the last tie-breaker of the story order. */
  index: number;
  /** The file's id, or `#<index+1>` for formats whose items carry none. */
  id: string;
  /** False when `id` was synthesised because the item had none. */
  hasId: boolean;
  title: string;
  description: string;
  /** acceptanceCriteria for prd.json, steps for feature lists. */
  acceptanceCriteria: string[];
  /** Normalised: 1 = highest; "high" → 1, "medium" → 2, "low" → 3; undefined when absent. */
  priority: number | undefined;
  /** A missing passes field reads as false (the story is open). */
  passes: boolean;
  notes: string | undefined;
  dependsOn: string[];
  model: string | undefined;
  category: string | undefined;
  /** undefined = the user's MCP config; [] = no MCP servers; names = only those. */
  mcpServers: string[] | undefined;
  specRef: string | undefined;
  /** Commands ralph runs to verify the story (`verify`, one or a list); absent: none. */
  verify?: string[] | undefined;
  /** Why the story is parked (the loop skips it); undefined when it is not. */
  blocked?: string | undefined;
  /** The story may delete or skip tests and remove assertions (test integrity allows it). */
  allowTestChanges?: boolean | undefined;
  /** Memory tags: which memories.md entries the story's prompt gets; [] or absent: all of them. */
  tags?: string[] | undefined;
  amendment: StoryAmendment | undefined;
}

export interface TaskList {
  format: TaskListFormat;
  /** project / name / task_name, when the file has one. */
  name: string | undefined;
  description: string | undefined;
  branchName: string | undefined;
  /** feature_list.json `default_model`. */
  defaultModel: string | undefined;
  stories: Story[];
}
