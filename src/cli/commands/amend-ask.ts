import { usage } from '../../plan/amend.js';
import { createLineReader, type LineReader } from '../../session-loop/line-reader.js';
import type { CliContext } from '../context.js';

export type Stdin = NodeJS.ReadableStream & { isTTY?: boolean };

/**
 * What `ralph amend` asks when a flag is missing. On a terminal it asks; anywhere else (a
 * script, CI, an agent's shell) a missing required flag is a usage error naming the flag, and a
 * warning does not wait for a confirmation nobody could give.
 */
export interface Asker {
  interactive: boolean;
  required(value: string | undefined, flag: string, question: string): Promise<string>;
  list(values: readonly string[], flag: string, question: string): Promise<string[]>;
  optional(question: string): Promise<string | undefined>;
  confirm(question: string): Promise<boolean>;
  close(): void;
}

export function createAsker(stdin: Stdin, context: CliContext): Asker {
  const interactive = stdin.isTTY === true;
  let reader: LineReader | undefined;
  const line = async (question: string): Promise<string | undefined> => {
    reader ??= createLineReader(stdin);
    context.stderr.write(question);
    return (await reader.next())?.trim();
  };
  const missing = (flag: string) =>
    usage(`${flag} is required`, `pass ${flag} "…" (ralph asks for it only on a terminal)`);
  return {
    interactive,
    async required(value, flag, question) {
      if (value !== undefined && value.trim() !== '') return value;
      if (!interactive) throw missing(flag);
      const answer = await line(`${question}: `);
      if (answer === undefined || answer === '') throw missing(flag);
      return answer;
    },
    async list(values, flag, question) {
      if (values.length > 0) return [...values];
      if (!interactive) throw missing(flag);
      context.stderr.write(`${question}, one per line (empty line to finish):\n`);
      const answers: string[] = [];
      for (;;) {
        const answer = await line('- ');
        if (answer === undefined || answer === '') break;
        answers.push(answer);
      }
      if (answers.length === 0) throw missing(flag);
      return answers;
    },
    async optional(question) {
      if (!interactive) return undefined;
      const answer = await line(`${question}: `);
      return answer === '' ? undefined : answer;
    },
    async confirm(question) {
      if (!interactive) return true;
      const answer = await line(`${question} (y/N) `);
      return answer !== undefined && /^y(es)?$/i.test(answer);
    },
    close() {
      reader?.close();
    },
  };
}
