import type { EmulatorOptions, RunningEmulator } from '../emulator/server.js';

/**
 * Starts the emulator of the service on loopback (`{port: 0}` for a free port), for an
 * application's own tests: `{url, close, ...}`. The emulator (and the MCP SDK it serves sessions
 * with) is loaded on the first call, so an application that imports the package and never calls
 * this loads none of it.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { startEmulator: start } = await import('../emulator/server.js');
  return start(options);
}
