// A listing thread that beats, then gets stuck in a regular expression that backtracks for ages.
import { parentPort } from 'node:worker_threads';

setInterval(() => parentPort.postMessage({ kind: 'beat' }), 200);
setTimeout(() => {
  /^(a+)+$/.test(`${'a'.repeat(40)}!`);
  parentPort.postMessage({ kind: 'listed', items: [] });
}, 500);
