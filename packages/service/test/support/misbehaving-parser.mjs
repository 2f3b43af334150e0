// A stand-in for the parser process that misbehaves on request, to prove that the sandbox and its
// supervisor contain whatever a parser does. It speaks the real protocol (a JSON request per line in,
// a JSON answer per line out); the request's file name says what to do.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { createInterface } from 'node:readline';

if (process.argv.includes('--probe')) process.stdout.write('ok', () => process.exit(0));

// Tells processes apart: a reused process answers with the same one.
const processId = randomUUID();
let answered = 0;
const answer = (text) =>
  new Promise((resolve) =>
    process.stdout.write(
      `${JSON.stringify({ ok: true, document: { mediaType: 'text/plain', text, pageCount: null, title: null } })}\n`,
      resolve,
    ),
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

async function handle(request) {
  const [action, hostDir] = String(request.filename).split(':');
  switch (action) {
    case 'crash':
      process.abort();
      break;
    case 'spin':
      for (;;);
    case 'sleep':
      return new Promise(() => {});
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
      return new Promise(() => {});
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
      return answer(JSON.stringify(report));
    }
    case 'whoami':
      return answer(JSON.stringify({ processId, answered: answered++ }));
    case 'burn': {
      // CPU for the number of milliseconds after the colon, then an answer.
      const used = () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };
      const until = used() + Number(hostDir);
      while (used() < until);
      return answer(JSON.stringify({ processId }));
    }
    case 'chatty': {
      // Its answer and, in the same write, a second one nobody asked for (it would pass for the next
      // document's); 'chatty-later' sends the second one a moment after its answer, while idle.
      const text = JSON.stringify({ processId });
      const one = JSON.stringify({
        ok: true,
        document: { mediaType: 'text/plain', text, pageCount: null, title: null },
      });
      await new Promise((resolve) => process.stdout.write(`${one}\n${one}\n`, resolve));
      return;
    }
    case 'chatty-later':
      await answer(JSON.stringify({ processId }));
      setTimeout(() => process.stdout.write('{"ok":true}\n'), 200);
      return;
    case 'inbox':
      // What the process can see of the documents: only the one it is parsing now.
      return answer(JSON.stringify(readdirSync(request.inputPath.replace(/\/[^/]*$/, '')).sort()));
    default:
      return answer(`parsed ${request.filename}`);
  }
}

/** A group of documents (their bytes inline): 'crash' among them kills the process, as it would alone. */
async function handleGroup(request) {
  if (request.group.some((d) => d.filename === 'crash')) process.abort();
  const results = request.group.map((d) => ({
    ok: true,
    document: {
      mediaType: 'text/plain',
      text: JSON.stringify({
        processId,
        answered: answered++,
        bytes: Buffer.from(d.bytes, 'base64').toString(),
      }),
      pageCount: null,
      title: null,
    },
  }));
  await new Promise((resolve) => process.stdout.write(`${JSON.stringify({ results })}\n`, resolve));
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
  if (!line.trim()) continue;
  const request = JSON.parse(line);
  await (request.group ? handleGroup(request) : handle(request));
}
process.exit(0);
