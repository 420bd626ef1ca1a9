import type { CommandUnknownOpts, HelpConfiguration } from '@commander-js/extra-typings';

/** Help is wrapped for the narrowest common terminal. */
export const HELP_WIDTH = 80;

/**
 * Descriptions are written as short paragraphs with line breaks where they read well in the
 * source. Wrapped again at 80 columns those breaks would cut every line in two: a single line
 * break becomes a space, a blank line stays a paragraph break, and an indented line (a list,
 * an example) keeps its break.
 */
export function reflow(text: string): string {
  return text.replace(/([^\n])\n(?=\S)/g, '$1 ');
}

/** Reflows the descriptions of a command, its options and arguments, and its subcommands'. */
export function reflowHelpTexts(command: CommandUnknownOpts): void {
  command.description(reflow(command.description()));
  for (const option of command.options) option.description = reflow(option.description);
  for (const argument of command.registeredArguments)
    argument.description = reflow(argument.description);
  for (const sub of command.commands) reflowHelpTexts(sub);
}

/**
 * Help wrapped at 80 columns. In a list of subcommands a command shows its summary (one line)
 * under its name and arguments: "[options]" after every name only lengthened every line.
 */
export function helpConfiguration(): HelpConfiguration {
  return {
    helpWidth: HELP_WIDTH,
    subcommandTerm: (command: CommandUnknownOpts) =>
      [command.name(), ...command.registeredArguments.map(argumentTerm)].join(' '),
  };
}

function argumentTerm(argument: { name(): string; required: boolean; variadic: boolean }): string {
  const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
  return argument.required ? `<${name}>` : `[${name}]`;
}
