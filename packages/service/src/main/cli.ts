import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { insertUser } from '../access/people.js';
import { ConditionalWritesIgnored } from '../adapters/objects/conditional-writes.js';
import { EmbeddedPostgresError } from '../adapters/postgres/embedded.js';
import { ParserIsolationUnavailable } from '../adapters/sandbox/parser.js';
import { activeTraceIds } from '../adapters/tracing/propagate.js';
import { buildApp, serverConnectionCap } from '../app.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { createDeps, type Deps } from '../deps.js';
import { DEFAULT_ACCOUNT, ensureBootstrapKey } from '../domain/keys.js';
import { observingStages } from '../domain/stopwatch.js';
import { DependencyUnavailable } from '../errors.js';
import { buildWorkerApp, probeConnectionCap } from '../http/worker-app.js';
import { createLogger } from '../logger.js';
import { accounts } from './accounts.js';
import { bucket, groups, keys, secrets, users } from './admin.js';
import { logAllocator } from './allocator.js';
import { type Databases, migrateAll, resolveDatabases } from './database.js';
import { openFilesLimit } from './descriptors.js';
import { evaluate } from './eval.js';
import { openApiDocument } from './openapi.js';
import { ensureCanListen, listenFailure } from './port.js';
import { resendUnfinished } from './reconciler.js';
import { USAGE } from './usage.js';
import { type RunningWorker, startWorker } from './worker.js';

type Stopper = () => Promise<void>;

/** Stops everything in reverse order on SIGINT/SIGTERM; a second signal exits at once. */
function onShutdown(log: Logger, stoppers: Stopper[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const s of [...stoppers].reverse())
      await s().catch((err: unknown) => log.warn({ err }, 'shutdown step failed'));
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

const DEPENDENCY_NAMES = { database: 'the database', objectStorage: 'object storage' } as const;

/**
 * Runs `fn` until it gets past unavailable dependencies: a stack whose database or object store is
 * down at start (or refuses our keys) waits for it, saying why on every attempt, as it would if the
 * dependency went away later. Any other error ends the start.
 */
async function untilAvailable<T>(log: Logger, what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof DependencyUnavailable)) throw err;
      const seconds = Math.min(30, 2 ** Math.min(attempt, 5));
      log.warn(
        { dependency: err.dependency, reason: err.message, attempt, retryInSeconds: seconds },
        `${what} is waiting for ${DEPENDENCY_NAMES[err.dependency]}: ${err.message}; retrying in ${seconds} s`,
      );
      await new Promise((r) => setTimeout(r, seconds * 1000));
    }
  }
}

/** What the server makes sure of in the database: the bootstrap key and the configured console user. */
async function provision(deps: Deps): Promise<void> {
  if (deps.config.bootstrapApiKey) await ensureBootstrapKey(deps.accounts, deps.config.bootstrapApiKey);
  const { adminEmail, adminPassword } = deps.config.console;
  if (adminEmail && adminPassword && !(await deps.users.findUserByEmail(adminEmail))) {
    const account = await deps.accounts.ensureAccount(DEFAULT_ACCOUNT);
    await insertUser(deps, account.id, { email: adminEmail, password: adminPassword, role: 'owner' });
    deps.log.info({ email: adminEmail }, 'created the console user from CONSOLE_ADMIN_EMAIL');
  }
}

/**
 * Serves the API. With the database up, provisioning is done before the first request; with it down,
 * the server listens anyway (`/health` 200, `/ready` 503 naming the database, API calls 503) and
 * provisions once the database answers.
 */
async function startServer(deps: Deps): Promise<FastifyInstance> {
  const provisioned = await provision(deps).then(
    () => true,
    (err: unknown) => {
      if (!(err instanceof DependencyUnavailable)) throw err;
      return false;
    },
  );
  const app = await buildApp(deps, { maxConnections: serverConnectionCap(openFilesLimit()) });
  const { host, port } = deps.config.server;
  try {
    await app.listen({ host, port });
  } catch (err) {
    await app.close();
    throw listenFailure(err, host, port) ?? err;
  }
  if (!provisioned) {
    void untilAvailable(deps.log, 'the server', () => provision(deps)).catch((err: unknown) =>
      deps.log.error({ err }, 'provisioning the bootstrap key or console user failed'),
    );
  }
  return app;
}

/**
 * Starts the document worker once parsing is known to work as configured (sandbox checked once here),
 * waiting for the job engine's database when it is not up yet.
 */
async function runWorker(deps: Deps): Promise<RunningWorker> {
  await deps.parser.start();
  // A store that ignores conditional writes would lose index commits silently: no document is taken
  // until it honours them (the check's error says what to do; /ready names it meanwhile). A store
  // that is down or refuses our keys is an outage like any other: the worker starts, and its index
  // writes wait for the check to pass.
  await untilAvailable(deps.log, 'the worker', () =>
    deps.commitCheck.check().catch((err: unknown) => {
      if (err instanceof ConditionalWritesIgnored) throw err;
    }),
  );
  return untilAvailable(deps.log, 'the worker', () =>
    startWorker({
      ...deps,
      concurrency: deps.config.worker.docConcurrency,
      batchDocuments: deps.config.worker.batchDocuments,
      batchMaxBytes: deps.config.worker.batchMaxBytes,
      syncConcurrency: deps.config.worker.syncConcurrency,
      evaluationConcurrency: deps.config.worker.evaluationConcurrency,
      syncsPerAccount: deps.config.worker.syncsPerAccount,
      reconcileIntervalSeconds: deps.config.worker.reconcileIntervalSeconds,
      leaseSeconds: deps.config.worker.leaseSeconds,
      maxAttempts: deps.config.worker.maxAttempts,
      // With tracing on, each document stage is also a span under the job's.
      observeStage: observingStages(deps.metrics.observeStage, deps.tracer),
      observeFinished: deps.metrics.observeFinished,
      measureBatch: deps.metrics.batch,
      auditRetentionDays: deps.config.audit.retentionDays,
      evaluating: deps,
    }),
  );
}

function requireStack(config: Config, command: string): void {
  if (!config.database.url) {
    throw new ConfigError(
      `"${command}" runs as a separate process of the stack and needs DATABASE_URL; to run everything locally use "docslurp serve" (npm start)`,
    );
  }
}

/** How a person reaches the console from this start: with the configured user, or by creating one. */
function signInHint(config: Config, hasUsers: boolean): string {
  if (config.console.adminEmail && config.console.adminPassword)
    return `  sign in as ${config.console.adminEmail} with the password in CONSOLE_ADMIN_PASSWORD`;
  if (hasUsers) return '  sign in with your console user (list them: npm run docslurp -- users list)';
  return [
    '  create a console user first (in another terminal, while this runs):',
    '    npm run docslurp -- users create --email you@example.com --password-stdin',
    '  (it asks for a password of at least 10 characters, or reads it from a pipe)',
  ].join('\n');
}

function printBanner(config: Config, url: string, hasUsers: boolean): void {
  const consoleBuilt = existsSync(path.join(config.console.assetsDir, 'index.html'));
  const lines = [
    '',
    `DocSlurp is running at ${url}`,
    config.mode === 'embedded'
      ? `  data folder: ${config.dataDir} (embedded PostgreSQL, files, search index)`
      : '',
    '',
    consoleBuilt
      ? `Web console: ${url}/\n${signInHint(config, hasUsers)}`
      : 'Web console: not built (run "npm run build" and start again)',
    '',
    `API reference: ${url}/openapi.json`,
    config.bootstrapApiKey
      ? '  API key: the one in SERVICE_BOOTSTRAP_API_KEY'
      : '  Get an API key (in another terminal, while this runs):\n    npm run keys -- create --scopes ingest,search,artifacts',
    '',
  ].filter((l, i, all) => l !== '' || all[i - 1] !== '');
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Runs a start step; when it fails, stops what was started so far (in reverse) before the error
 * ends the process: an embedded PostgreSQL is a process of its own and would otherwise outlive us.
 */
async function orUndo<T>(log: Logger, stoppers: Stopper[], step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    for (const s of [...stoppers].reverse())
      await s().catch((e: unknown) => log.warn({ err: e }, 'stopping after a failed start failed'));
    stoppers.length = 0;
    throw err;
  }
}

async function serve(config: Config, log: Logger): Promise<void> {
  const t0 = performance.now();
  logAllocator(log);
  if (config.worker.httpPort !== undefined)
    log.warn('WORKER_HTTP_PORT is ignored by "serve": its server port answers /health, /ready and /metrics');
  // A taken port is said at once, not after a new data folder was initialised and migrated.
  await ensureCanListen(config.server.host, config.server.port);
  const dbs = await resolveDatabases(config, log, 'own');
  const stoppers: Stopper[] = [async () => dbs.embedded?.stop()];
  onShutdown(log, stoppers);
  await orUndo(log, stoppers, () => startServing(config, log, dbs, stoppers, t0));
}

async function startServing(
  config: Config,
  log: Logger,
  dbs: Databases,
  stoppers: Stopper[],
  t0: number,
): Promise<void> {
  await migrateAll(config, dbs.urls, (line) => log.info(line));
  const deps = await createDeps(config, log, dbs.urls);
  stoppers.push(() => deps.close());
  // One process owns the embedded database, so any lease in it belongs to a process that is gone.
  if (dbs.embedded?.owned) {
    await deps.work.releaseAllLeases();
    await deps.webhooks.releaseAllClaims();
    await resendUnfinished(deps);
  }
  // Refuse to start at all, rather than serve uploads nobody can parse, when isolation is impossible.
  await deps.parser.start();
  const app = await startServer(deps);
  stoppers.push(() => app.close());
  const worker = await runWorker(deps);
  stoppers.push(() => worker.stop());
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.server.port;
  const host = config.server.host === '0.0.0.0' ? '127.0.0.1' : config.server.host;
  log.info({ ms: Math.round(performance.now() - t0), port }, 'ready');
  const hasUsers = (await deps.users.listUsers(undefined)).length > 0;
  printBanner(config, `http://${host.includes(':') ? `[${host}]` : host}:${port}`, hasUsers);
}

async function server(config: Config, log: Logger): Promise<void> {
  requireStack(config, 'server');
  logAllocator(log);
  const dbs = await resolveDatabases(config, log, 'attach');
  const deps = await createDeps(config, log, dbs.urls);
  const stoppers: Stopper[] = [() => deps.close()];
  onShutdown(log, stoppers);
  const app = await startServer(deps);
  stoppers.push(() => app.close());
}

/** The worker's probes on WORKER_HTTP_PORT, listening before the worker waits for anything. */
async function startWorkerHttp(deps: Deps, port: number): Promise<FastifyInstance> {
  const openFiles = openFilesLimit();
  const maxConnections = probeConnectionCap(openFiles);
  const app = await buildWorkerApp({ ...deps, readinessChecks: deps.workerReadinessChecks }, maxConnections);
  await app.listen({ host: deps.config.server.host, port });
  const address = app.server.address();
  deps.log.info(
    { port: typeof address === 'object' && address ? address.port : port, maxConnections, openFiles },
    'worker probes listening (/health, /ready, /metrics)',
  );
  return app;
}

async function worker(config: Config, log: Logger): Promise<void> {
  requireStack(config, 'worker');
  logAllocator(log);
  const dbs = await resolveDatabases(config, log, 'attach');
  const deps = await createDeps(config, log, dbs.urls);
  const stoppers: Stopper[] = [() => deps.close()];
  onShutdown(log, stoppers);
  if (config.worker.httpPort !== undefined) {
    const http = await startWorkerHttp(deps, config.worker.httpPort);
    stoppers.push(() => http.close());
  }
  const w = await runWorker(deps);
  stoppers.push(() => w.stop());
}

async function migrate(config: Config, log: Logger): Promise<void> {
  const line = (l: string) => process.stdout.write(`${l}\n`);
  try {
    const dbs = await resolveDatabases(config, log, 'attach');
    try {
      await migrateAll(config, dbs.urls, line);
    } finally {
      await dbs.embedded?.stop();
    }
  } catch (err) {
    process.stderr.write(`[migrate] failed: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const [command, ...rest] = argv;
  const help = (arg: string | undefined) => arg === '--help' || arg === '-h';
  // `docslurp users --help` asks for the same text as `docslurp --help`.
  if (!command || command === 'help' || help(command) || rest.some(help)) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (command === 'migrate') process.stderr.write(`[migrate] failed: ${(err as Error).message}\n`);
    else process.stderr.write(`docslurp: ${(err as Error).message}\n`);
    process.exit(1);
  }
  // CLI commands keep their output readable: only warnings from the service's internals.
  const interactive = ['keys', 'users', 'groups', 'accounts', 'secrets', 'bucket', 'eval'].includes(command);
  // With tracing on, lines written inside a span (a worker's job, say) name it.
  const traceIds = config.tracing ? activeTraceIds : undefined;
  const log = createLogger(interactive ? 'warn' : config.logLevel, { traceIds });
  try {
    switch (command) {
      case 'serve':
        return await serve(config, log);
      case 'server':
        return await server(config, log);
      case 'worker':
        return await worker(config, log);
      case 'migrate':
        return await migrate(config, log);
      case 'keys':
        return await keys(config, log, rest);
      case 'users':
        return await users(config, log, rest);
      case 'groups':
        return await groups(config, log, rest);
      case 'accounts':
        return await accounts(config, log, rest);
      case 'secrets':
        return await secrets(config, log, rest);
      case 'bucket':
        return await bucket(config, rest);
      case 'eval':
        return await evaluate(config, log, rest, env);
      case 'openapi':
        // Silent: the log goes to standard output, which holds the document.
        process.stdout.write(
          `${JSON.stringify(await openApiDocument(config, createLogger('silent')), null, 2)}\n`,
        );
        return;
      default:
        process.stderr.write(`docslurp: unknown command "${command}"\n\n${USAGE}\n`);
        process.exit(2);
    }
  } catch (err) {
    // A mistyped option is a usage error, not a crash: the message and the usage, no stack trace.
    if ((err as { code?: unknown }).code?.toString().startsWith('ERR_PARSE_ARGS_')) {
      process.stderr.write(`docslurp: ${(err as Error).message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (
      err instanceof ConfigError ||
      err instanceof EmbeddedPostgresError ||
      err instanceof ParserIsolationUnavailable
    ) {
      process.stderr.write(`docslurp: ${err.message}\n`);
    } else {
      log.fatal({ err }, `${command} failed`);
    }
    process.exit(1);
  }
}
