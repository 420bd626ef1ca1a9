import { Command } from '@commander-js/extra-typings';
import { terminalText } from '../util/control-chars.js';
import { colored, type CliContext } from './context.js';

export type Mark = 'pass' | 'warn' | 'fail' | 'info';

const SYMBOLS: Record<Mark, string> = { pass: '✓', warn: '⚠', fail: '✗', info: '•' };
const COLORS: Record<Mark, number> = { pass: 32, warn: 33, fail: 31, info: 36 };

/** Colour only for a terminal, and never when NO_COLOR is set (no-color.org) or TERM=dumb. */
export function useColor(context: CliContext): boolean {
  const stream = context.stdout as NodeJS.WritableStream & { isTTY?: boolean };
  if (context.env.NO_COLOR !== undefined && context.env.NO_COLOR !== '') return false;
  if (context.env.FORCE_COLOR !== undefined && context.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && context.env.TERM !== 'dumb';
}

/** A line for writeStyledLine: the mark in colour, `text` made terminal-safe. */
export function markLine(mark: Mark, text: string, color: boolean): string {
  return `${colored(SYMBOLS[mark], COLORS[mark], color)} ${terminalText(text)}`;
}

export function writeJson(context: CliContext, value: unknown): void {
  context.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * A command with subcommands (`ralph loop`, `memory`, `templates`, `amend`): its own help and
 * errors go where the CLI's do, and a mistyped subcommand gets a suggestion, not an exit. Output
 * is configured here, before any subcommand is made: `.command()` copies it to them.
 */
export function commandGroup(name: string, description: string, context: CliContext) {
  return new Command(name)
    .description(description)
    .helpCommand(false)
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
    })
    .exitOverride()
    .showSuggestionAfterError(true);
}
