import { describe, expect, test } from 'vitest';
import { Needs, privilegeHint } from '../../../src/state/postgres-privileges.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';

const target = parsePostgresUrl('postgres://app@db.internal:5432/ops?schema=sessions&workspace=production', {});
const read = 'grant it, or run as a role that has it (docs/state.md, "Roles and grants")';
const create = 'grant it, or have an administrator run the first apply (docs/state.md, "Roles and grants")';

describe('what a refused privilege (42501) tells the role', () => {
  test.each([
    ['a table, to read', 'permission denied for table fleet', Needs.read, `role "app" needs SELECT on sessions.fleet: ${read}`],
    ['a table, to write', 'permission denied for table locks', Needs.write, `role "app" needs SELECT, INSERT, UPDATE and DELETE on sessions.locks: ${read}`],
    ['a table, for ensure', 'permission denied for table fleet', Needs.ensure, `role "app" needs SELECT, INSERT and UPDATE on sessions.fleet: ${read}`],
    ['a relation (PostgreSQL before 15)', 'permission denied for relation entries', Needs.read, `role "app" needs SELECT on sessions.entries: ${read}`],
    ['the schema', 'permission denied for schema sessions', Needs.read, `role "app" needs USAGE on schema sessions: ${read}`],
    ['the schema, to create its tables', 'permission denied for schema sessions', Needs.create, `role "app" needs CREATE on schema sessions: ${create}`],
    ['a table while creating', 'permission denied for table schema_migrations', Needs.create, `role "app" needs SELECT, INSERT, UPDATE and DELETE on sessions.schema_migrations: ${create}`],
    ['the database', 'permission denied for database ops', Needs.read, `role "app" needs CONNECT on database ops: ${read}`],
    ['the database, to create the schema', 'permission denied for database ops', Needs.create, `role "app" needs CREATE on database ops: ${create}`],
    ['words it does not know', 'permission denied to set parameter "x"', Needs.read, `role "app" lacks a privilege this needs: ${read}`],
  ])('%s', (_name, message, needs, expected) => {
    expect(privilegeHint(message, target, needs)).toBe(expected);
  });
});
