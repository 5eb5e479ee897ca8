import type { PostgresTarget } from './postgres-url.js';

/** insufficient_privilege: the role may not do what the statement does. */
export const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * What a statement needs of the role, named when the server refuses it. The roles each of these
 * belongs to, and their GRANT statements, are in docs/state.md ("Roles and grants").
 */
export const Needs = {
  /** Reads: plan, diff, `state list`, the application's lookup. */
  read: 'SELECT',
  /** The pipeline's writes: records, the lock, publications. */
  write: 'SELECT, INSERT, UPDATE and DELETE',
  /** ensure's writes: the application's role inserts and updates its users' rows, and deletes none. */
  ensure: 'SELECT, INSERT and UPDATE',
  /** The first run, or a newer sessionctl's migration: the schema and its tables. */
  create: 'CREATE',
} as const;

export type Privileges = (typeof Needs)[keyof typeof Needs];

const DOCS = 'docs/state.md, "Roles and grants"';

/**
 * The way out of a refused privilege, from the server's own words ("permission denied for table
 * fleet", "... for schema sessionctl", "... for database ops"): which role needs what, on which
 * object, and where the grants are listed. The server names the object but not the privilege: a
 * schema needs USAGE to be looked into at all (CREATE to make tables in it), a database CONNECT
 * (CREATE to make the schema), a table what the statement does.
 */
export function privilegeHint(message: string, target: PostgresTarget, needs: Privileges): string {
  const role = JSON.stringify(target.connection.user);
  const creating = needs === Needs.create;
  const denied = /permission denied for (schema|table|relation|database) (\S+)$/.exec(message);
  const way = creating ? 'grant it, or have an administrator run the first apply' : 'grant it, or run as a role that has it';
  if (denied === null) return `role ${role} lacks a privilege this needs: ${way} (${DOCS})`;
  const [, kind, name] = denied as unknown as [string, string, string];
  const what =
    kind === 'schema'
      ? `${creating ? 'CREATE' : 'USAGE'} on schema ${name}`
      : kind === 'database'
        ? `${creating ? 'CREATE' : 'CONNECT'} on database ${name}`
        : `${creating ? Needs.write : needs} on ${target.schema}.${name}`;
  return `role ${role} needs ${what}: ${way} (${DOCS})`;
}
