/**
 * A real redis-server for a test: on 127.0.0.1, a free port, in a temporary
 * directory, with persistence off (`--save '' --appendonly no`: nothing is
 * written to disk). Not found on the PATH: an error saying to install it
 * (tests never skip; .ci/run installs it from the system's packages).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts one (`command`: the server's executable); rejects with the server's output when it does not get ready within 10 s. */
export async function startRedis(command = 'redis-server'): Promise<RedisServer> {
  if (spawnSync(command, ['--version']).error !== undefined) {
    throw new Error(`${command} is not installed (not on the PATH): install it (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis); .ci/run does when it is missing`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'wirefold-redis-'));
  // another process may take the port between freePort() and the server's bind: try again with a new one
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(command, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      const onData = (d: Buffer): void => {
        output += d.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      child.stdout!.resume();
      child.stderr!.resume();
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        async stop() {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited(child);
          clearTimeout(timer);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    child.kill('SIGKILL');
    await exited(child);
    if (attempt >= 3 || !/Address already in use/i.test(output)) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`redis-server did not start on 127.0.0.1:${port}:\n${output}`);
    }
  }
}
