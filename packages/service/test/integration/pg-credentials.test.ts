import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/adapters/postgres/embedded.js';
import { deriveWorkflowUrl } from '../../src/config.js';
import { silentLog } from '../../src/domain/log.js';
import { client } from '../support/http.js';
import { baseEnv, freePort, runCli, startCli, waitForHealth } from '../support/processes.js';

/**
 * A database password with every character that is reserved in URLs, against a PostgreSQL that
 * checks passwords (SCRAM). The machine's PostgreSQL trusts loopback connections, so it could not
 * tell a mangled password from a correct one; the embedded server started here can.
 */
const PASSWORD = "p@ss:w/rd#%?&=+ 'x";
const ROLE = 'docslurp_reserved';
let tmp: string;
let pgServer: EmbeddedPostgres;
let databaseUrl: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'docslurp-pgcred-'));
  await chmod(tmp, 0o755);
  pgServer = await startEmbeddedPostgres(tmp, silentLog, 'own');
  const admin = new pg.Client({ connectionString: pgServer.adminUrl });
  await admin.connect();
  await admin.query(`CREATE ROLE ${ROLE} LOGIN CREATEDB PASSWORD ${admin.escapeLiteral(PASSWORD)}`);
  await admin.query(`CREATE DATABASE service OWNER ${ROLE}`);
  await admin.end();
  const u = new URL(pgServer.adminUrl);
  databaseUrl = `postgres://${ROLE}:${encodeURIComponent(PASSWORD)}@${u.host}/service`;
});

afterAll(async () => {
  await pgServer?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('database credentials with reserved URL characters', () => {
  it('keeps the encoded password when deriving the job database URL', () => {
    const derived = new URL(deriveWorkflowUrl(databaseUrl));
    expect(decodeURIComponent(derived.password)).toBe(PASSWORD);
    expect(derived.pathname).toBe('/service_workflow');
  });

  it('migrates, serves and works with the URL-encoded password', async () => {
    const port = await freePort();
    const env = {
      ...baseEnv(),
      DATABASE_URL: databaseUrl,
      NODE_ENV: 'production',
      WORKFLOW_NAMESPACE: 'service',
      DATA_DIR: path.join(tmp, 'files'),
      SERVER_BIND_ADDRESS: '127.0.0.1',
      SERVER_PORT: String(port),
      SERVICE_BOOTSTRAP_API_KEY: 'dsk_reserved_characters_test_key',
      LOG_LEVEL: 'warn',
    };
    const migrate = await runCli(['migrate'], env);
    expect(migrate.code, migrate.output).toBe(0);
    expect(migrate.output).toContain('[migrate] applied 0001_init.sql');

    const serve = startCli('serve', ['serve'], env);
    try {
      await waitForHealth(`http://127.0.0.1:${port}`, 60_000);
      const api = client(`http://127.0.0.1:${port}`, env.SERVICE_BOOTSTRAP_API_KEY);
      const up = await api.upload([{ name: 'a.txt', content: 'Reserved characters are fine.' }]);
      expect(up.status).toBe(202);
      expect((await api.waitForRun(up.body.run.id, 60_000)).counts.ready).toBe(1);
      const ready = await api.get('/ready');
      expect(ready.body.checks.database.ok).toBe(true);
      expect(ready.body.checks.jobEngine.ok).toBe(true);
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
  });

  it('fails migrate with a readable reason when the password is wrong', async () => {
    const wrong = databaseUrl.replace(encodeURIComponent(PASSWORD), encodeURIComponent(`${PASSWORD}!`));
    const r = await runCli(['migrate'], {
      ...baseEnv(),
      DATABASE_URL: wrong,
      NODE_ENV: 'production',
      WORKFLOW_NAMESPACE: 'service',
    });
    expect(r.code).toBe(1);
    expect(r.output).toMatch(
      /^\[migrate\] failed: password authentication failed for user "docslurp_reserved"/m,
    );
  });
});
