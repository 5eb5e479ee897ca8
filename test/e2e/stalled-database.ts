import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * PostgreSQL servers that stop answering, on loopback, for the deadline tests:
 * - `black-hole`: accepts the connection and never sends a byte;
 * - `stall-after-startup`: answers the startup (AuthenticationOk, ReadyForQuery), then never
 *   answers a statement.
 */
export interface StalledDatabase {
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

export async function stalledDatabase(kind: 'black-hole' | 'stall-after-startup'): Promise<StalledDatabase> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (kind === 'black-hole') return;
    let startedUp = false;
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (startedUp) return; // every statement goes unanswered
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4 || buffered.length < buffered.readInt32BE(0)) return;
      startedUp = true;
      // AuthenticationOk, then ReadyForQuery (idle).
      const ok = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0]);
      const ready = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);
      socket.write(Buffer.concat([ok, ready]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
