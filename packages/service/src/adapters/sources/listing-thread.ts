/**
 * The listing thread's entry (dist/listing.js): lists one source with connectors built from plain
 * options and posts the items back. It beats every HEARTBEAT_MS while its event loop turns, so the
 * worker can tell a listing that waits on the network from one stuck in a computation.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { PreviousItem, SourceAccess } from '../../sources/model.js';
import { SourceFailure } from '../../sources/model.js';
import { connectorFor } from './connector-for.js';
import type { ConnectorOptions } from './connectors.js';
import { HEARTBEAT_MS, type ListingMessage } from './threaded-lister.js';

const port = parentPort!;
const data = workerData as {
  options: ConnectorOptions;
  source: SourceAccess;
  previous: Map<string, PreviousItem>;
};
const post = (m: ListingMessage) => port.postMessage(m);
const abort = new AbortController();
port.on('message', (m: { kind: 'abort' }) => {
  if (m.kind === 'abort') abort.abort(new Error('The sync was stopped.'));
});
const beat = setInterval(() => post({ kind: 'beat' }), HEARTBEAT_MS);

connectorFor(data.source.type, data.options)
  .then((connector) => connector.list(data.source, data.previous, abort.signal))
  .then(
    (items) => post({ kind: 'listed', items }),
    (err: unknown) =>
      post(
        err instanceof SourceFailure
          ? { kind: 'failed', code: err.code, message: err.message }
          : { kind: 'failed', code: undefined, message: (err as Error).message ?? String(err) },
      ),
  )
  .finally(() => {
    clearInterval(beat);
    port.close();
  });
