// A stand-in for the parser process that misbehaves on request, to prove that the sandbox and its
// supervisor contain whatever a parser does. It speaks the real protocol; the request's file name
// says what to do.
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';

if (process.argv.includes('--probe')) process.stdout.write('ok', () => process.exit(0));

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
const answer = (text) =>
  process.stdout.write(
    JSON.stringify({ ok: true, document: { mediaType: 'text/plain', text, pageCount: null, title: null } }),
    () => process.exit(0),
  );

function tryWrite(path) {
  try {
    writeFileSync(path, 'escaped');
    return 'written';
  } catch (err) {
    return err.code;
  }
}

function tryConnect(port, host) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host, timeout: 2000 });
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.on('error', (err) => resolve(err.code));
  });
}

const [action, hostDir] = String(request.filename).split(':');
switch (action) {
  case 'crash':
    process.abort();
    break;
  case 'spin':
    for (;;);
  case 'sleep':
    setInterval(() => {}, 1000);
    break;
  case 'heap': {
    const hoard = [];
    for (;;) hoard.push({ n: Math.random(), s: `${Math.random()}`.repeat(8) });
  }
  case 'native': {
    const hoard = [];
    for (;;) hoard.push(Buffer.alloc(16 * 1024 * 1024, 1));
  }
  case 'flood': {
    const block = 'x'.repeat(1024 * 1024);
    const pump = () => {
      while (process.stdout.write(block));
      process.stdout.once('drain', pump);
    };
    pump();
    break;
  }
  case 'garbage':
    process.stdout.write('this is not json', () => process.exit(0));
    break;
  case 'escape': {
    const report = {
      env: Object.keys(process.env).sort(),
      uid: process.getuid?.(),
      input: readFileSync(request.inputPath, 'utf8'),
      writes: Object.fromEntries(
        [
          request.inputPath,
          '/escape',
          '/usr/escape',
          '/etc/escape',
          '/dev/escape',
          '/dev/shm/escape',
          new URL('escape', import.meta.url).pathname,
          ...(hostDir ? [`${hostDir}/escape`] : []),
        ].map((p) => [p, tryWrite(p)]),
      ),
      tmp: tryWrite('/tmp/allowed'),
      passwd: (() => {
        try {
          return readFileSync('/etc/passwd', 'utf8').length > 0 ? 'readable' : 'empty';
        } catch (err) {
          return err.code;
        }
      })(),
      postgres: await tryConnect(5432, '127.0.0.1'),
      internet: await tryConnect(80, '1.1.1.1'),
    };
    answer(JSON.stringify(report));
    break;
  }
  default:
    answer(`parsed ${request.filename}`);
}
