// A listing thread whose memory grows without end, as a frontier of a link farm's links did.
import { parentPort } from 'node:worker_threads';

setInterval(() => parentPort.postMessage({ kind: 'beat' }), 200);
const held = [];
const grow = () => {
  for (let i = 0; i < 10_000; i++) held.push(`https://farm.test/page/${held.length}/${Math.random()}`);
  setImmediate(grow);
};
grow();
