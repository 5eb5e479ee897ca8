import type { Command, Option } from 'commander';

/** One option as the completion scripts need it. */
export interface CompletionOption {
  /** Every spelling, short first: `['-f', '--format']`. */
  flags: string[];
  /** True when the option takes a value (`<x>` or `[x]`). */
  takesValue: boolean;
  /** The values to offer; empty when any value goes (then files are offered). */
  choices: string[];
  /** A command (argv) whose output lines are the values, run by the shell at completion time. */
  choicesFrom?: string[];
  description: string;
}

/** One positional argument. */
export interface CompletionArgument {
  name: string;
  choices: string[];
  variadic: boolean;
}

/** A command and everything below it, in the order commander shows them in `--help`. */
export interface CompletionCommand {
  name: string;
  /** Words from the program to this command: `''` for the program, `'files ls'` for a subcommand. */
  path: string;
  description: string;
  options: CompletionOption[];
  arguments: CompletionArgument[];
  commands: CompletionCommand[];
}

/**
 * Extra choices for options that commander cannot validate as a fixed list, such as
 * `--format NAME[=FILE]`: keyed by the option's long flag.
 */
export type ExtraChoices = Readonly<Record<string, readonly string[] | { readonly command: readonly string[] }>>;

/**
 * Walks the commander program into a plain tree. The scripts are rendered from this tree every
 * time `sessionctl completion` runs, so they always match the commands of the installed version.
 */
export function completionModel(program: Command, extra: ExtraChoices = {}): CompletionCommand {
  return walk(program, '', extra);
}

function walk(cmd: Command, path: string, extra: ExtraChoices): CompletionCommand {
  const help = cmd.createHelp();
  const commands = help
    .visibleCommands(cmd)
    .map((sub) => walk(sub, path === '' ? sub.name() : `${path} ${sub.name()}`, extra));
  // commander's implicit `help [command]` is not in `cmd.commands`; its argument is a sibling's name.
  const implicitHelp = commands.find((c) => c.name === 'help' && !cmd.commands.some((sub) => sub.name() === 'help'));
  if (implicitHelp !== undefined) {
    implicitHelp.arguments = [{ name: 'command', choices: commands.filter((c) => c !== implicitHelp).map((c) => c.name), variadic: false }];
  }
  return {
    name: cmd.name(),
    path,
    description: oneLine(cmd.summary() || cmd.description()),
    options: help.visibleOptions(cmd).map((option) => toOption(option, extra)),
    arguments: cmd.registeredArguments.map((arg) => ({ name: arg.name(), choices: [...(arg.argChoices ?? [])], variadic: arg.variadic })),
    commands,
  };
}

function toOption(option: Option, extra: ExtraChoices): CompletionOption {
  const flags = [option.short, option.long].filter((f): f is string => f !== undefined);
  const takesValue = option.required || option.optional;
  const more = option.long !== undefined ? extra[option.long] : undefined;
  const choices = option.argChoices ?? (Array.isArray(more) ? more : []);
  const out: CompletionOption = { flags, takesValue, choices: takesValue ? [...choices] : [], description: oneLine(option.description) };
  if (takesValue && more !== undefined && 'command' in more) out.choicesFrom = [...more.command];
  return out;
}

/** Descriptions end up inside shell quotes: keep the first sentence-ish line only. */
function oneLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** Every command of the tree, depth first, the program first. */
export function commandTree(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.commands.flatMap(commandTree)];
}
