import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../state/atomic-write.js';
import type { Template } from './catalogue.js';

/** What happened to one file of a template added to a loop directory. */
export interface AddedFile {
  target: string;
  /** created: new; same: already identical; kept: changed there, left alone; replaced: --force. */
  result: 'created' | 'same' | 'kept' | 'replaced';
}

/**
 * Copies `template`'s files into `loopDir`. A file that is there already and differs (the person
 * adapted it) is kept unless `force`: adapting the copy is the point of the library.
 */
export async function addTemplate(
  template: Template,
  loopDir: string,
  options: { libraryDir: string; force: boolean },
): Promise<AddedFile[]> {
  const added: AddedFile[] = [];
  for (const file of template.files) {
    const content = await readFile(join(options.libraryDir, file.source));
    const target = join(loopDir, file.target);
    const existing = await readFile(target).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    });
    if (existing?.equals(content) === true) {
      added.push({ target, result: 'same' });
      continue;
    }
    if (existing !== undefined && !options.force) {
      added.push({ target, result: 'kept' });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFileAtomic(target, content);
    added.push({ target, result: existing === undefined ? 'created' : 'replaced' });
  }
  return added;
}
