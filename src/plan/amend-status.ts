import type { TaskListDocument } from './read.js';
import type { Spec } from './spec.js';

/** `ralph amend status`: the amendment history and where the stories stand now. */
export interface AmendStatus {
  stories: { total: number; passing: number };
  amendments: {
    id: string;
    type: string | undefined;
    title: string;
    timestamp: string | undefined;
    /** Stories in prd.json whose metadata names this amendment. */
    stories: string[];
  }[];
  descoped: { id: string; title: string; amendment: string | undefined }[];
  /** The next id `ralph amend` will hand out. */
  nextAmendmentId: string;
}

export function amendStatus(spec: Spec, prd: TaskListDocument, nextId: string): AmendStatus {
  const stories = prd.taskList.stories;
  return {
    stories: { total: stories.length, passing: stories.filter((s) => s.passes).length },
    amendments: spec.amendments.map((amd) => ({
      id: amd.id,
      type: amd.type,
      title: amd.title,
      timestamp: amd.timestamp,
      stories: stories.filter((s) => s.amendment?.id === amd.id).map((s) => s.id),
    })),
    descoped: spec.descoped.map((d) => ({
      id: d.storyId,
      title: d.title,
      amendment: d.amendmentId,
    })),
    nextAmendmentId: nextId,
  };
}

export function formatAmendStatus(status: AmendStatus): string[] {
  const { total, passing } = status.stories;
  const lines = [`Stories: ${String(passing)}/${String(total)} pass`];
  if (status.amendments.length === 0) {
    lines.push('Amendments: none');
  } else {
    lines.push(`Amendments (${String(status.amendments.length)}):`);
    for (const amd of status.amendments) {
      const type = (amd.type ?? '?').toUpperCase().padEnd(7);
      const when = amd.timestamp === undefined ? '' : `  ${amd.timestamp}`;
      const on = amd.stories.length === 0 ? '' : `  [${amd.stories.join(', ')}]`;
      lines.push(`  ${amd.id}  ${type} ${amd.title}${when}${on}`);
    }
  }
  if (status.descoped.length > 0) {
    lines.push(`Descoped stories (${String(status.descoped.length)}):`);
    for (const d of status.descoped) {
      lines.push(`  ${d.id}: ${d.title}${d.amendment === undefined ? '' : ` (${d.amendment})`}`);
    }
  }
  lines.push(`Next amendment id: ${status.nextAmendmentId}`);
  return lines;
}
