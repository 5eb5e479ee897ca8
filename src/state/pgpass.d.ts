// The helpers of the pgpass module (the reader of libpq's password file that pg itself used): its
// entry point reads PGPASSFILE and HOME from process.env, these take the environment. No types ship.
declare module 'pgpass/lib/helper.js' {
  import type { Stats } from 'node:fs';
  import type { Readable } from 'node:stream';
  interface ConnectionInfo {
    host?: string;
    port?: number | string;
    database?: string;
    user?: string;
  }
  /** PGPASSFILE, else HOME/.pgpass (APPDATA/postgresql/pgpass.conf on Windows), from `env`. */
  function getFileName(env: Readonly<Record<string, string | undefined>>): string;
  /** False for a file that is not a plain file or that others can read (with a warning on stderr), or while process.env has PGPASSWORD. */
  function usePgPass(stats: Stats, file: string): boolean;
  /** The password of the first line that matches the connection, or undefined. */
  function getPassword(connInfo: ConnectionInfo, stream: Readable, callback: (password: string | undefined) => void): void;
  const helper: { getFileName: typeof getFileName; usePgPass: typeof usePgPass; getPassword: typeof getPassword };
  export default helper;
}
