import { dirname, join } from 'node:path';
import type { SessionClient } from '../client/client.js';
import type { Connect, SessionApi } from '../runner/connection.js';
import type { StateBackend } from '../state/backend.js';
import type { CommandEnv } from './command.js';
import { apiVersionOf, clientFromOptions, type ConnectionOptions } from './connection.js';

/**
 * The data folder of the `--emulator` of a run: beside a state file (`<state folder>/emulator`),
 * so that plan, apply, diff and the operate commands of one state see the same sessions; for a
 * state that is not a file, `.sessionctl/emulator` in the working directory.
 */
export function emulatorDataDir(state: StateBackend, cwd: string): string {
  return state.kind === 'file' ? join(dirname(state.location), 'emulator') : join(cwd, '.sessionctl', 'emulator');
}

/** A client and what ends it (for `--emulator`, the emulator too). */
export interface OpenConnection {
  client: SessionClient;
  close(): Promise<void>;
}

/**
 * The one way a command reaches "the service": the real one through the shared connection options,
 * or, with `--emulator`, an in-process emulator whose sessions are kept beside the state file, so
 * that plan, apply, diff and the operate commands see the same ones (any key works; its URL goes
 * to stderr). The emulator and undici are loaded only here, so commands that never connect do
 * not pay for them.
 */
export async function openConnection(flags: ConnectionOptions & { emulator?: boolean }, env: CommandEnv, state: StateBackend): Promise<OpenConnection> {
  if (flags.emulator === true) {
    const [{ startEmulator }, { createClient }] = await Promise.all([import('../emulator/server.js'), import('../client/client.js')]);
    const dataDir = emulatorDataDir(state, env.io.cwd);
    const emulator = await startEmulator({ port: 0, dataDir });
    env.io.stderr.write(`emulator: ${emulator.url} (sessions kept in ${dataDir})\n`);
    const client = createClient({ baseUrl: emulator.url, apiKey: 'sessionctl-emulator', apiVersion: apiVersionOf(flags, env.io.env) });
    return {
      client,
      close: async () => {
        await client.close();
        await emulator.close();
      },
    };
  }
  const client = await clientFromOptions(flags, env);
  return { client, close: () => client.close() };
}

/** How plan, apply and diff connect: lazily, only when a run needs the network. */
export function connector(flags: ConnectionOptions & { emulator?: boolean }, env: CommandEnv, state: StateBackend): Connect {
  return async (): Promise<SessionApi> => {
    const { client, close } = await openConnection(flags, env, state);
    const { bodyForVersion } = await import('../config/request-version.js');
    const version = apiVersionOf(flags, env.io.env);
    return {
      createSession: (body) => client.createSession(bodyForVersion(body, version)),
      getSession: (id) => client.getSession(id),
      updateSession: (id, body) => client.updateSession(id, bodyForVersion(body, version)),
      deleteSession: (id) => client.deleteSession(id),
      configHistory: (id, query) => client.configHistory(id, query),
      mcpToolNames: async (id) => (await client.mcpTools(id)).map((t) => t.name),
      close,
    };
  };
}
