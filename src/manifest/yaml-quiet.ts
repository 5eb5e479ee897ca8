import { env } from 'node:process';

/**
 * yaml 2.9's debug switches: with `LOG_TOKENS` set, its CST parser prints every lexical token to
 * stdout (dist/parse/parser.js, `Parser.next`); with `LOG_STREAM`, its composer prints every CST
 * token (dist/compose/composer.js, `Composer.next`). It reads them from the environment on every
 * call and has no option that turns them off, so a variable the caller never gave sessionctl made
 * `parseManifest` print 171 lines for one manifest, and `validate --format json` no longer JSON.
 */
const YAML_DEBUG_VARIABLES = ['LOG_TOKENS', 'LOG_STREAM'] as const;

/**
 * Runs a synchronous call into yaml with its debug switches hidden, and puts them back as they
 * were, so that nothing else sees the difference (JavaScript runs nothing else in between; a
 * worker thread has its own copy of the environment). Without the variables, this only reads.
 * This is the one place below the CLI that touches the environment, and only to keep a
 * dependency from reacting to it.
 */
export function withoutYamlDebug<T>(work: () => T): T {
  const hidden = YAML_DEBUG_VARIABLES.filter((name) => env[name] !== undefined).map((name) => [name, env[name]!] as const);
  if (hidden.length === 0) return work();
  for (const [name] of hidden) delete env[name];
  try {
    return work();
  } finally {
    for (const [name, value] of hidden) env[name] = value;
  }
}
