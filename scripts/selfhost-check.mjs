#!/usr/bin/env node
// Checks .env.selfhost, and with --running the composed stack: every required service running,
// migrate finished, and the server answering /health. Exits 1 with what to do when something is off.
//
//   node scripts/selfhost-check.mjs [--running] [--env-path PATH]
import { parseArgs } from 'node:util';
import {
  composeCommand,
  defaultEnvFile,
  display,
  engineCommand,
  envFileName,
  problemsOf,
  REQUIRED_SERVICES,
  readEnvFile,
  run,
  SelfhostError,
  script,
} from './selfhost-lib.mjs';

/** State of each container of `service`: e.g. [{status: 'exited', exitCode: 1}]. */
async function containersOf(compose, engine, service) {
  const ids = (await run([...compose, 'ps', '-a', '-q', service], { quiet: true }))
    .split(/\s+/)
    .filter(Boolean);
  if (ids.length === 0) return [];
  const out = await run([engine, 'inspect', '--format', '{{.State.Status}} {{.State.ExitCode}}', ...ids], {
    quiet: true,
  });
  return out
    .trim()
    .split('\n')
    .map((line) => {
      const [status, code] = line.trim().split(/\s+/);
      return { status, exitCode: Number(code) };
    });
}

async function lastLogLines(compose, service, n) {
  const out = await run([...compose, 'logs', '--no-color', '--tail', String(n), service], {
    quiet: true,
  }).catch(() => '');
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => `    ${l}`)
    .join('\n');
}

async function checkRunning(values, file) {
  const compose = composeCommand(file);
  const engine = engineCommand();
  const problems = [];

  const migrate = await containersOf(compose, engine, 'migrate');
  const migrateFailed = migrate.find((c) => c.status === 'exited' && c.exitCode !== 0);
  if (migrateFailed) {
    problems.push(
      `migrate exited with code ${migrateFailed.exitCode}, so server and workers do not start. Its last lines:\n` +
        `${await lastLogLines(compose, 'migrate', 5)}\n` +
        '  "[migrate] waiting for the migration lock" means another migration holds the lock. Fix the cause, ' +
        'then run up -d again; restore from a backup if a release broke the schema.',
    );
  }

  const stopped = [];
  for (const entry of REQUIRED_SERVICES) {
    const names = Array.isArray(entry) ? entry : [entry];
    const states = await Promise.all(names.map((n) => containersOf(compose, engine, n)));
    if (states.some((s) => s.some((c) => c.status === 'running'))) continue;
    const all = states.flat();
    const why =
      all.length === 0
        ? 'not created'
        : all.map((c) => (c.status === 'exited' ? `exited with code ${c.exitCode}` : c.status)).join(', ');
    stopped.push({
      name: names.join(' or '),
      why,
      logs: all.length ? await lastLogLines(compose, names[0], 5) : '',
    });
  }
  if (stopped.length) {
    problems.push(
      `required services not running: ${stopped.map((s) => `${s.name} (${s.why})`).join(', ')}.\n` +
        stopped
          .filter((s) => s.logs)
          .map((s) => `  last lines of ${s.name}:\n${s.logs}`)
          .join('\n') +
        `\n  List all services with "${display([...compose, 'ps', '-a'])}" and read a service's logs with ` +
        `"${display([...compose, 'logs', '<service>'])}".`,
    );
  }

  const host = values.get('SERVER_BIND_ADDRESS') || '127.0.0.1';
  const port = values.get('SERVER_PORT') || '8080';
  const healthUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/health`;
  try {
    const res = await fetch(healthUrl, { signal: AbortSignal.timeout(5000) });
    const body = await res.json().catch(() => undefined);
    if (!res.ok || body?.ok !== true) throw new Error(`HTTP ${res.status}`);
  } catch (err) {
    problems.push(
      `server health check failed: ${err.message} (${healthUrl}). The server may still be starting (about ` +
        `15 seconds); otherwise read its logs ("${display([...compose, 'logs', 'server'])}") and check ` +
        `SERVER_BIND_ADDRESS and SERVER_PORT in ${envFileName(file)}.`,
    );
  }
  return { problems, healthUrl };
}

await script(async () => {
  const { values: opts } = parseArgs({
    options: {
      running: { type: 'boolean', default: false },
      'env-path': { type: 'string', default: defaultEnvFile },
    },
  });
  const file = opts['env-path'];
  const values = readEnvFile(file);
  const problems = problemsOf(values, file);
  if (problems.length) throw new SelfhostError(problems.join('\n'));
  process.stdout.write(`ok: ${envFileName(file)} has every required value\n`);
  if (!opts.running) return;
  const { problems: stackProblems, healthUrl } = await checkRunning(values, file);
  if (stackProblems.length) throw new SelfhostError(stackProblems.join('\n'));
  process.stdout.write(`ok: every required service is running and ${healthUrl} answers\n`);
});
