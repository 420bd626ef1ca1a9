import { amendmentTime } from './amend-ids.js';
import { changePrd } from './amend-prd.js';
import { amendmentHeader, progressEntry } from './amend-render.js';
import {
  AMENDMENTS_SECTION,
  dependentsOf,
  findStory,
  newAmendmentId,
  requirePrdWithIds,
  type AmendFiles,
  type AmendOutcome,
} from './amend.js';
import { parseSpec } from './spec.js';
import {
  appendToSection,
  inlineText,
  joinSpec,
  renderStory,
  replaceLines,
  splitSpec,
  storyBlocks,
  type SpecLines,
} from './spec-text.js';
import type { Story } from './types.js';
import type { StoryEdit } from './write.js';

/**
 * `ralph amend remove`: descopes a story without losing it. Its definition moves, whole, under
 * spec.md's Descoped Stories; it leaves prd.json's active stories so the loop no longer works on
 * it; stories that depended on it are named, and either lose that dependency (the default: a
 * dependency on a story that will never be built can never be met) or, with `withDependents`,
 * are descoped by the same amendment.
 */

export interface RemoveRequest {
  storyId: string;
  reason: string;
  withDependents?: boolean | undefined;
}

export function removeStory(files: AmendFiles, request: RemoveRequest): AmendOutcome {
  requirePrdWithIds(files);
  const target = findStory(files, request.storyId);
  const removing = request.withDependents === true ? withDependents(files, target) : [target];
  const gone = new Set(removing.map((s) => s.id));
  const amd = newAmendmentId(files);
  const time = amendmentTime(files.now);
  const warnings: string[] = [];
  const dependents = files.prd.taskList.stories.filter(
    (s) => !gone.has(s.id) && s.dependsOn.some((d) => gone.has(d)),
  );
  const direct = dependentsOf(files, target.id);
  if (direct.length > 0) {
    const list = direct.map((s) => `${s.id} (passes: ${String(s.passes)})`).join(', ');
    warnings.push(
      request.withDependents === true
        ? `${target.id} blocks ${list}: descoped with it`
        : `${target.id} blocks ${list}: they stay, without the dependency on ${target.id} (pass --with-dependents to descope them too)`,
    );
  }
  for (const story of removing) {
    if (story.passes)
      warnings.push(`${story.id} passes: its completed work is descoped, not deleted`);
  }

  const lines = splitSpec(files.specText);
  const descoped: string[][] = [];
  for (const story of removing) {
    // Read again after each cut: the lines of the next story's definitions have moved.
    const spec = parseSpec(joinSpec(lines), files.specFile);
    const active = spec.stories.find((s) => s.id === story.id);
    descoped.push(cutDefinitions(lines, story, active?.line, amd, time, request.reason));
  }
  appendToSection(
    lines,
    'amendments',
    'Amendments',
    [
      ...amendmentHeader(
        amd,
        `Remove ${removing.map((s) => s.id).join(', ')}`,
        time,
        'REMOVE',
        request.reason,
        [`**Target:** ${removing.map((s) => `${s.id} - ${s.title}`).join('; ')}`],
      ),
      '',
      `Moved to Descoped Stories: ${removing.map((s) => s.id).join(', ')}.`,
    ],
    AMENDMENTS_SECTION,
  );
  appendToSection(
    lines,
    'descoped stories',
    'Descoped Stories',
    descoped.flatMap((b, i) => (i === 0 ? b : ['', ...b])),
    {
      intro: '<!-- Stories removed by `ralph amend remove`, kept whole for the record -->',
    },
  );

  const set: StoryEdit[] = dependents.map((s) => ({
    id: s.id,
    set: { [dependencyKey(files, s)]: s.dependsOn.filter((d) => !gone.has(d)) },
  }));
  const prdText = changePrd(files.prd, { set, remove: [...gone] });
  const entry = progressEntry({
    id: amd,
    time,
    kind: 'REMOVE',
    command: files.command,
    heading: 'Removed Story:',
    items: removing.flatMap((s) => [
      `${s.id}: ${s.title}`,
      `Previous Status: passes: ${String(s.passes)}`,
    ]),
    reason: request.reason,
    filesUpdated: [
      `spec.md: ${amd} in Amendments; ${[...gone].join(', ')} under Descoped Stories`,
      `prd.json: removed ${[...gone].join(', ')} from the active stories${
        dependents.length > 0
          ? `; dependency dropped from ${dependents.map((s) => s.id).join(', ')}`
          : ''
      }`,
    ],
  });
  return {
    amendmentId: amd,
    specText: joinSpec(lines),
    prdText,
    progressEntry: entry,
    warnings,
    storyIds: [...gone],
    summary: [`${amd}: descoped ${[...gone].join(', ')} (kept under Descoped Stories in spec.md)`],
  };
}

/** The story and, transitively, every story that depends on it. */
function withDependents(files: AmendFiles, target: Story): Story[] {
  const found = [target];
  // An array iterator sees items pushed while it runs: a breadth-first walk.
  for (const story of found) {
    for (const next of dependentsOf(files, story.id)) {
      if (!found.includes(next)) found.push(next);
    }
  }
  return found;
}

/** `dependsOn` or `dependencies`, whichever key the story's object uses. */
function dependencyKey(files: AmendFiles, story: Story): string {
  const raw = (files.prd.json.value as Record<string, unknown>)[String(files.prd.storiesPath[0])];
  const item = Array.isArray(raw) ? (raw[story.index] as Record<string, unknown>) : {};
  return item.dependsOn === undefined && item.dependencies !== undefined
    ? 'dependencies'
    : 'dependsOn';
}

/**
 * Cuts every definition of the story out of User Stories and Amendments (a story still defined
 * there would be active and descoped at once), leaving a pointer in its place, and returns the
 * Descoped Stories entry that holds the active definition whole.
 */
function cutDefinitions(
  lines: SpecLines,
  story: Story,
  activeLine: number | undefined,
  amd: string,
  time: string,
  reason: string,
): string[] {
  const blocks = storyBlocks(lines.lines).filter((b) => b.id === story.id);
  const active = blocks.find((b) => b.start + 1 === activeLine) ?? blocks.at(-1);
  const original =
    active === undefined
      ? renderStory({ ...story, acceptanceCriteria: story.acceptanceCriteria }, 4)
      : [
          `#### ${lines.lines[active.start]?.replace(/^\s*#+\s*/, '') ?? story.id}`,
          ...lines.lines.slice(active.start + 1, active.end),
        ];
  const pointer = `*${story.id} was descoped by ${amd}; its definition is under Descoped Stories.*`;
  for (const block of [...blocks].reverse()) replaceLines(lines, block.start, block.end, [pointer]);
  return [
    `### ${story.id}: ${inlineText(story.title)} (Removed ${amd})`,
    '',
    `**Removed:** ${time}`,
    `**Reason:** ${inlineText(reason)}`,
    `**Status at removal:** passes: ${String(story.passes)}`,
    '',
    '**Original Definition:**',
    '',
    ...original,
  ];
}
