/**
 * The preflight sync check: spec.md is the source of truth and the task list is derived from it,
 * so the two must agree on which stories exist and what each one's acceptance criteria are. The
 * fields the agent owns (passes, notes) are expected to differ and are never compared.
 */
import { basename } from 'node:path';
import type { SourceLocation } from '../util/errors.js';
import type { Severity, Spec, SpecStory } from './spec.js';
import { hasStoriesSection } from './spec.js';
import type { Story, TaskList } from './types.js';

export interface SyncFinding {
  severity: Severity;
  storyId?: string;
  message: string;
  hint?: string;
  location?: SourceLocation;
}

export interface SyncOptions {
  /** The task list's file name for messages; by default `prd.json` or `feature_list.json`. */
  taskListFile?: string;
}

/** File names used in messages. */
export interface SyncNames {
  spec: string;
  list: string;
}

const REGENERATE = (n: SyncNames): string =>
  `run \`ralph sync\` to regenerate ${n.list} from ${n.spec}`;

function namesOf(spec: Spec, taskList: TaskList, options: SyncOptions): SyncNames {
  const fallback = taskList.format.startsWith('prd') ? 'prd.json' : 'feature_list.json';
  return { spec: basename(spec.file) || 'spec.md', list: options.taskListFile ?? fallback };
}

/** NFC and single spaces, so that invisible differences (CRLF, wrapping, composed accents) never count. */
function normalise(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/**
 * A criterion as compared: also without a bullet or checkbox someone typed into prd.json and
 * without a trailing period, because `- [ ] Typecheck passes.` and `Typecheck passes` are the
 * same requirement and a sync error for them only teaches people to skip the check.
 */
export function normaliseCriterion(text: string): string {
  return normalise(text)
    .replace(/^(?:[-*+•]|\d+[.)])\s+/, '')
    .replace(/^\[[ xX]\]\s*/, '')
    .replace(/[.;]+$/, '')
    .trim();
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 119)}…` : text);
}

/** Describes the first difference between two criteria lists, or undefined when they agree. */
export function firstCriteriaDifference(
  specCriteria: readonly string[],
  listCriteria: readonly string[],
  names: SyncNames = { spec: 'spec.md', list: 'prd.json' },
): string | undefined {
  const length = Math.max(specCriteria.length, listCriteria.length);
  for (let i = 0; i < length; i++) {
    const a = specCriteria[i];
    const b = listCriteria[i];
    if (a !== undefined && b !== undefined && normaliseCriterion(a) === normaliseCriterion(b))
      continue;
    const side = (name: string, text: string | undefined): string =>
      `${name} ${text === undefined ? '(none)' : quote(text)}`;
    return `criterion ${i + 1}: ${side(names.spec, a)}, ${side(names.list, b)}`;
  }
  return undefined;
}

/**
 * The seed's sync scenarios plus the amendment checks. Decisions beyond the seed:
 * - a title that differs only in case or spacing is fine; any other title difference is a
 *   warning, not an error, because the agent works from the criteria and a renamed story is
 *   still the same work;
 * - a story the task list marks removed (amendment type `remove`) is not an active story: it is
 *   checked against Descoped Stories instead of User Stories;
 * - items without ids (feature lists) cannot be matched, so the check says so and stops.
 */
export function checkSpecSync(
  spec: Spec,
  taskList: TaskList,
  options: SyncOptions = {},
): SyncFinding[] {
  const names = namesOf(spec, taskList, options);
  const withIds = taskList.stories.filter((s) => s.hasId);
  if (taskList.stories.length > 0 && withIds.length === 0) {
    return [
      {
        severity: 'warning',
        message: `${names.list} items have no ids, so they cannot be matched with ${names.spec} stories; sync not checked`,
        hint: `give each item an id that matches a ${names.spec} story heading (### STORY-001: Title)`,
      },
    ];
  }
  const findings: SyncFinding[] = taskList.stories
    .filter((s) => !s.hasId)
    .map((s) => ({
      severity: 'warning',
      message: `item ${s.id} in ${names.list} has no id, so it cannot be matched with ${names.spec}`,
    }));
  if (spec.stories.length > 0 || hasStoriesSection(spec)) {
    findings.push(...checkStories(spec, withIds, names));
  } else {
    findings.push({
      severity: 'error',
      message: `${names.spec} has no User Stories section, so ${names.list} cannot be checked against it`,
      hint: `add a "## User Stories" section with "### STORY-001: Title" headings`,
      location: { file: spec.file },
    });
  }
  findings.push(...checkAmendments(spec, taskList, options));
  return findings;
}

function checkStories(spec: Spec, stories: Story[], names: SyncNames): SyncFinding[] {
  const findings: SyncFinding[] = [];
  const listById = new Map<string, Story>();
  for (const story of stories) if (!listById.has(story.id)) listById.set(story.id, story);
  const specById = new Map<string, SpecStory>(spec.stories.map((s) => [s.id, s]));

  for (const specStory of spec.stories) {
    const story = listById.get(specStory.id);
    const location = { file: spec.file, line: specStory.line };
    // A story removed in the task list but active in spec.md is reported by checkAmendments.
    if (story?.amendment?.type === 'remove') continue;
    if (story === undefined) {
      findings.push({
        severity: 'error',
        storyId: specStory.id,
        message: `${specStory.id} in ${names.spec} not found in ${names.list}`,
        hint: `${REGENERATE(names)} (or add the story to ${names.list})`,
        location,
      });
      continue;
    }
    const difference = firstCriteriaDifference(
      specStory.acceptanceCriteria,
      story.acceptanceCriteria,
      names,
    );
    if (difference !== undefined) {
      findings.push({
        severity: 'error',
        storyId: specStory.id,
        message: `${specStory.id} acceptance criteria differ between ${names.spec} and ${names.list}: ${difference}`,
        hint: `${REGENERATE(names)} (or make the two lists match)`,
        location,
      });
    }
    const sameTitle =
      normalise(specStory.title).toLowerCase() === normalise(story.title).toLowerCase();
    if (!sameTitle) {
      findings.push({
        severity: 'warning',
        storyId: specStory.id,
        message: `${specStory.id} title differs: ${names.spec} ${quote(specStory.title)}, ${names.list} ${quote(story.title)}`,
        hint: REGENERATE(names),
        location,
      });
    }
  }

  for (const story of stories) {
    if (specById.has(story.id) || story.amendment?.type === 'remove') continue;
    const descoped = spec.descoped.find((d) => d.storyId === story.id);
    if (descoped !== undefined) {
      const by = descoped.amendmentId === undefined ? '' : ` by ${descoped.amendmentId}`;
      findings.push({
        severity: 'warning',
        storyId: story.id,
        message: `${story.id} was descoped${by} in ${names.spec} but is still active in ${names.list}`,
        hint: `remove it from ${names.list}, or mark it with a "remove" amendment`,
        location: { file: spec.file, line: descoped.line },
      });
    } else if (story.passes) {
      findings.push({
        severity: 'error',
        storyId: story.id,
        message: `${story.id} in ${names.list} (passes: true) not found in ${names.spec} — COMPLETED WORK WOULD BE LOST`,
        hint: `add ${story.id} back to ${names.spec} to keep the completed work, or remove it from ${names.list} deliberately`,
      });
    } else {
      findings.push({
        severity: 'warning',
        storyId: story.id,
        message: `${story.id} in ${names.list} (passes: false) not found in ${names.spec} (orphaned story)`,
        hint: `add it to ${names.spec}, or drop it with \`ralph sync --confirm-orphan-removal\``,
      });
    }
  }
  return findings;
}

/**
 * The seed's amendment checks: AMD ids in spec.md are unique (error); a story's amendment id is
 * recorded in spec.md (warning); a story removed by an amendment is kept under Descoped Stories
 * (error, because that section is the only record of the removed requirement).
 */
export function checkAmendments(
  spec: Spec,
  taskList: TaskList,
  options: SyncOptions = {},
): SyncFinding[] {
  const names = namesOf(spec, taskList, options);
  const findings: SyncFinding[] = [];
  const firstLine = new Map<string, number>();
  for (const amd of spec.amendments) {
    const first = firstLine.get(amd.id);
    if (first === undefined) {
      firstLine.set(amd.id, amd.line);
      continue;
    }
    findings.push({
      severity: 'error',
      message: `${amd.id} appears more than once in ${names.spec}'s Amendments (lines ${first} and ${amd.line})`,
      hint: 'amendment ids are never reused: give the later amendment the next free AMD number',
      location: { file: spec.file, line: amd.line },
    });
  }

  for (const story of taskList.stories) {
    const amendment = story.amendment;
    if (!story.hasId || amendment === undefined) continue;
    if (!firstLine.has(amendment.id)) {
      findings.push({
        severity: 'warning',
        storyId: story.id,
        message: `${story.id} in ${names.list} refers to ${amendment.id}, which ${names.spec}'s Amendments section does not record`,
        hint: `record ${amendment.id} under "## Amendments" in ${names.spec}, or correct the id`,
      });
    }
    if (amendment.type !== 'remove' || spec.descoped.some((d) => d.storyId === story.id)) continue;
    const active = spec.stories.find((s) => s.id === story.id);
    const where =
      active === undefined ? '' : ` (it is still an active story at line ${active.line})`;
    findings.push({
      severity: 'error',
      storyId: story.id,
      message: `${story.id} was removed by ${amendment.id} in ${names.list} but is not under Descoped Stories in ${names.spec}${where}`,
      hint: `move its definition under "## Descoped Stories" as "### ${story.id}: Title (Removed ${amendment.id})"`,
      ...(active === undefined ? {} : { location: { file: spec.file, line: active.line } }),
    });
  }
  return findings;
}
