import { createServer } from 'node:net';
import { ConfigError } from '../config.js';

/** Why the server cannot listen, for the errors a person fixes in the configuration. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is already in use; stop what uses it or choose another port with SERVER_PORT',
  EACCES: 'this user may not use the port; choose a port above 1023 with SERVER_PORT',
  EADDRNOTAVAIL: 'the address is not one of this machine; choose another with SERVER_BIND_ADDRESS',
};

/** A listen error a person fixes in the configuration, in one sentence; undefined for any other. */
export function listenFailure(err: unknown, host: string, port: number): ConfigError | undefined {
  const reason = LISTEN_ERRORS[(err as NodeJS.ErrnoException).code ?? ''];
  return reason ? new ConfigError(`cannot listen on ${host}:${port}: ${reason}`) : undefined;
}

/**
 * Listens on the server's address for a moment and lets go, so that `serve` says a port is taken
 * before it initialises and migrates a data folder (issue 43: about 12 s of work, then the error).
 * Port 0 takes any free port, so there is nothing to check. Another process may still take the port
 * before the server listens; the server's own listen reports that the same way.
 */
export async function ensureCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (err) {
    throw listenFailure(err, host, port) ?? err;
  } finally {
    await new Promise<void>((resolve) => (probe.listening ? probe.close(() => resolve()) : resolve()));
  }
}
