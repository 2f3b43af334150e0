// A listing thread that waits (as on a slow network) and beats meanwhile, until told to stop.
import { parentPort } from 'node:worker_threads';

setInterval(() => parentPort.postMessage({ kind: 'beat' }), 200);
parentPort.on('message', (m) => {
  if (m.kind === 'abort') process.exit(0);
});
