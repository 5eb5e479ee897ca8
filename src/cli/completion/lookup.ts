import type { CompletionCommand } from './model.js';
import { singleQuote } from './shell-words.js';

/**
 * The four lookup functions that bash and zsh share: each is a `case` on the command path (and,
 * for choices, the option or `#N` position) whose branches answer with words. Only how a branch
 * answers differs between the shells.
 */
export interface Answer {
  /** A branch's answer: the words (unquoted) as the shell returns them. */
  words(words: readonly string[]): string;
  /** A branch's answer: the lines a command (argv) prints. */
  command(argv: readonly string[]): string;
  /** A subcommand or option word, with its description where the shell shows one. */
  item(word: string, description: string): string;
}

/** `name() { case SUBJECT in ... esac }`. */
function caseFunction(name: string, subject: string, cases: readonly string[]): string[] {
  return [`${name}() {`, `  case ${subject} in`, ...cases, '  esac', '}'];
}

/** The subcommands, options, value-taking options and choices of every command path. */
export function lookupFunctions(fn: string, commands: readonly CompletionCommand[], answer: Answer): string[] {
  const branch = (c: CompletionCommand, words: readonly string[]): string => `    ${singleQuote(c.path)}) ${answer.words(words)} ;;`;
  const subcommands = commands.filter((c) => c.commands.length > 0).map((c) => branch(c, c.commands.map((s) => answer.item(s.name, s.description))));
  const options = commands.map((c) => branch(c, c.options.flatMap((o) => o.flags.map((f) => answer.item(f, o.description)))));
  const valueOptions = commands
    .filter((c) => c.options.some((o) => o.takesValue))
    .map((c) => branch(c, c.options.filter((o) => o.takesValue).flatMap((o) => o.flags)));
  return [
    ...caseFunction(`${fn}_subcommands`, '"$1"', subcommands),
    '',
    ...caseFunction(`${fn}_options`, '"$1"', options),
    '',
    ...caseFunction(`${fn}_value_options`, '"$1"', valueOptions),
    '',
    '# $1 is the command path, $2 an option flag or #N for the Nth positional argument.',
    ...caseFunction(`${fn}_choices`, '"$1|$2"', commands.flatMap((c) => choiceCases(c, answer))),
  ];
}

/** The choices of a command's options and positional arguments, keyed `path|--flag` and `path|#N`. */
function choiceCases(c: CompletionCommand, answer: Answer): string[] {
  const cases: string[] = [];
  for (const o of c.options) {
    const pattern = o.flags.map((f) => singleQuote(`${c.path}|${f}`)).join('|');
    if (o.choicesFrom !== undefined) cases.push(`    ${pattern}) ${answer.command(o.choicesFrom)} ;;`);
    else if (o.choices.length > 0) cases.push(`    ${pattern}) ${answer.words(o.choices)} ;;`);
  }
  c.arguments.forEach((a, i) => {
    if (a.choices.length === 0) return;
    // A variadic argument takes every position from its own on.
    const pattern = a.variadic ? `${singleQuote(`${c.path}|#`)}*` : singleQuote(`${c.path}|#${i}`);
    cases.push(`    ${pattern}) ${answer.words(a.choices)} ;;`);
  });
  return cases;
}
