import { writeFileAtomic } from './atomic-write.js';
import { addEntry, normaliseEntries, removeEntries } from './memory-edit.js';
import {
  emptyMemories,
  entriesOf,
  parseMemories,
  serialiseMemories,
  type MemoryDocument,
  type MemoryEntry,
} from './memory-format.js';
import { readFileNoFollow } from '../util/no-follow.js';

/**
 * memories.md on disk: the project's (`.ralph/memories.md`) and the feature's (the loop
 * directory's). Reads refuse links (the agent can write both folders); writes are atomic and
 * only ever of a document that parsed, so a file ralph cannot read is never rewritten.
 */

export type MemoryScope = 'project' | 'feature';

export interface MemoryFiles {
  /** undefined outside a git repository: there is no project. */
  project: string | undefined;
  feature: string;
}

export interface ScopedEntry extends MemoryEntry {
  scope: MemoryScope;
  file: string;
}

/** The parsed file, or undefined when there is none. */
export async function readMemoryDocument(path: string): Promise<MemoryDocument | undefined> {
  let text: string;
  try {
    text = await readFileNoFollow(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return parseMemories(text, path);
}

/** The feature's entries, then the project's (the feature inherits them). */
export async function loadMemories(files: MemoryFiles): Promise<ScopedEntry[]> {
  const scoped: ScopedEntry[] = [];
  const sources: [MemoryScope, string | undefined][] = [
    ['feature', files.feature],
    // A loop directory that is the project folder itself has one file, not two.
    ['project', files.project === files.feature ? undefined : files.project],
  ];
  for (const [scope, file] of sources) {
    if (file === undefined) continue;
    const document = await readMemoryDocument(file);
    if (document === undefined) continue;
    for (const entry of entriesOf(document)) scoped.push({ ...entry, scope, file });
  }
  return scoped;
}

export async function appendMemory(
  file: string,
  scope: MemoryScope,
  entry: Pick<MemoryEntry, 'category' | 'timestamp' | 'tags' | 'text'>,
): Promise<void> {
  const document = (await readMemoryDocument(file)) ?? parseMemories(emptyMemories(scope), file);
  await writeFileAtomic(file, serialiseMemories(addEntry(document, entry)));
}

/** Removes the entries `remove` picks; the file is written only when one went. */
export async function pruneMemoryFile(
  file: string,
  remove: (entry: MemoryEntry) => boolean,
  options: { dryRun?: boolean } = {},
): Promise<MemoryEntry[]> {
  const document = await readMemoryDocument(file);
  if (document === undefined) return [];
  const result = removeEntries(document, remove);
  if (result.removed.length > 0 && options.dryRun !== true) {
    await writeFileAtomic(file, serialiseMemories(result.document));
  }
  return result.removed;
}

/**
 * Puts what an agent appended into ralph's form (memory-edit.ts). Returns how many entries or
 * sections changed (0: the file was left alone). Throws INVALID_MEMORIES, without writing, for a
 * file it cannot parse.
 */
export async function normaliseMemoryFile(file: string, now: Date): Promise<number> {
  const document = await readMemoryDocument(file);
  if (document === undefined) return 0;
  const result = normaliseEntries(document, `${now.toISOString().slice(0, 19)}Z`);
  if (result.changed > 0) await writeFileAtomic(file, serialiseMemories(result.document));
  return result.changed;
}
