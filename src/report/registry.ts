import { github } from './github.js';
import { human } from './human.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import { sarif } from './sarif.js';
import type { FormatName, Reporter } from './types.js';

/** Every report format by name. This record is also where `--format` takes its choices from. */
export const reporters = { human, json, github, sarif, junit, markdown } satisfies Record<FormatName, Reporter>;

/** The format names, in the order `--help` lists them. */
export const formatNames = Object.keys(reporters) as FormatName[];

export function isFormatName(name: string): name is FormatName {
  return Object.hasOwn(reporters, name);
}
