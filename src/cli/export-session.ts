import { dirname, resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import type { SessionClient } from '../client/client.js';
import { InputError } from '../diagnostics/errors.js';
import type { ResolvedSession } from '../runner/session-ref.js';
import type { CommandEnv } from './command.js';
import type { OperateFlags } from './operate-options.js';
import { schemaReference } from './schema-reference.js';
import { revealSensitive } from './sensitive-options.js';

export interface ExportFlags extends Omit<OperateFlags, 'format'> {
  name?: string;
  out?: string;
  force?: boolean;
  showSensitive?: boolean;
}

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function parseName(value: string): string {
  if (!NAME.test(value)) throw new InvalidArgumentError('a manifest name: lowercase letters, digits and hyphens, at most 63 characters');
  return value;
}

/** The name an exported manifest gets: `--name`, the recorded manifest's, or one made from the id. */
function nameFor(flags: ExportFlags, resolved: ResolvedSession): string {
  if (flags.name !== undefined) return flags.name;
  if (resolved.entry !== undefined) return resolved.entry.name;
  return `session-${resolved.sessionId.replace(/^trs_/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}`.slice(0, 63).replace(/-+$/, '');
}

/** Reads a session and writes the manifest that declares it (stdout, or `--out FILE`). */
export async function exportSession(client: SessionClient, sessionId: string, resolved: ResolvedSession, flags: ExportFlags, env: CommandEnv): Promise<void> {
  const [{ manifestFromSession }, { renderManifestYaml }, { maskRecordedSession, registerRecordedSensitive }] = await Promise.all([
    import('../config/manifest-from-session.js'),
    import('../report/manifest-yaml.js'),
    import('../runner/mask-session.js'),
  ]);
  // As plan's: values as they are only on the user's own machine, never into a kept CI log.
  const reveal = revealSensitive(flags, env);
  if (!reveal) registerRecordedSensitive(resolved.entry, env.masker, env.io.env);
  const live = await client.getSession(sessionId);
  // The fields apply recorded as sensitive come out as `(sensitive: VAR)`, which the file writes as
  // `${VAR}`; one made of a literal and variables, still holding what was applied, keeps its literal.
  const session = reveal ? live : maskRecordedSession(live, resolved.entry, env.masker, { templates: env.io.env });
  const out = flags.out === undefined ? undefined : resolve(env.io.cwd, flags.out);
  const text = renderManifestYaml(manifestFromSession(session, nameFor(flags, resolved)), {
    schemaRef: schemaReference(out === undefined ? env.io.cwd : dirname(out), env.io.cwd).ref,
    source: `session ${sessionId}`,
    ...(reveal ? { showSensitive: true } : {}),
  });
  if (out === undefined) {
    env.io.stdout.write(text);
    return;
  }
  const { writeNewFile } = await import('../util/atomic-write.js');
  const written = await writeNewFile(out, text, flags.force === true).catch((err: unknown) => {
    throw new InputError(`cannot write the manifest: ${(err as Error).message}`, flags.out, { cause: err });
  });
  if (written === 'exists') throw new InputError('the file exists; pass --force to replace it', flags.out);
  env.io.stderr.write(`wrote ${flags.out}\n`);
}

