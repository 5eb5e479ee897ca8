// `sessionctl emulator --port 0` in a process of its own, as the service is: its URL, the child,
// and a way to stop it. Shared by the benchmarks that measure a peer against one emulator.
import { spawn } from 'node:child_process';

export function emulator(bin) {
  const child = spawn(process.execPath, [bin, 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve({ url: out.split('\n')[0].trim(), child, stop: () => child.kill('SIGTERM') });
    });
  });
}
