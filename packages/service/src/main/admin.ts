/**
 * The administrative commands (keys, users, secrets, bucket): short-lived, attached to the database
 * (or to object storage) of a running service, with output meant for a person or a script.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { insertUser } from '../access/people.js';
import { findMember } from '../access/principals.js';
import { S3ObjectStore } from '../adapters/objects/s3.js';
import { type Config, ConfigError } from '../config.js';
import { createDeps, type Deps } from '../deps.js';
import { createApiKey, DEFAULT_ACCOUNT, parseScopes } from '../domain/keys.js';
import { rotateSecrets } from '../domain/secrets.js';
import { ROLES, type Role } from '../domain/types.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { exportBucket, importBucket } from '../ops/bucket-transfer.js';
import { type Databases, migrateAll, resolveDatabases } from './database.js';

/** CLI commands that only need the database: attach to a running embedded server or start one briefly. */
export async function withDatabase<T>(
  config: Config,
  log: Logger,
  fn: (deps: Deps, dbs: Databases) => Promise<T>,
): Promise<T> {
  const dbs = await resolveDatabases(config, log, 'attach');
  try {
    if (dbs.embedded?.owned) await migrateAll(config, dbs.urls, () => {});
    // Keys, users and secrets never search: no model is loaded (nor downloaded) for them.
    const deps = await createDeps(config, log, dbs.urls, { models: false });
    try {
      return await fn(deps, dbs);
    } finally {
      await deps.close();
    }
  } finally {
    await dbs.embedded?.stop();
  }
}

/**
 * What a command changed, in the account's audit log like the same change made through the API: the
 * actor is the command line and the operating-system user who ran it (who has the database anyway).
 */
export function auditCli(
  deps: Deps,
  accountId: string,
  entry: { action: string; targetType: string; targetId: string; details?: Record<string, unknown> },
): Promise<void> {
  return deps.audit.append({
    accountId,
    actor: `command line (${os.userInfo().username}@${os.hostname()})`,
    actorUserId: null,
    actorKeyId: null,
    clientAddress: null,
    outcome: 'success',
    details: {},
    ...entry,
  });
}

export async function keys(config: Config, log: Logger, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      scopes: { type: 'string' },
      name: { type: 'string' },
      account: { type: 'string' },
      user: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [action, target] = positionals;
  await withDatabase(config, log, async (deps) => {
    if (action === 'create') {
      if (!values.scopes)
        throw new ConfigError('keys create needs --scopes, e.g. --scopes ingest,search,artifacts');
      const scopes = parseScopes(values.scopes);
      const account = await deps.accounts.ensureAccount(values.account ?? DEFAULT_ACCOUNT);
      // A key bound to a user acts exactly as that user: its role and what it may see.
      const user = values.user ? await findMember(deps.users, account.id, values.user) : undefined;
      if (values.user && !user)
        throw new ConfigError(`no user "${values.user}" in account "${account.name}"`);
      const { key, secret } = await createApiKey(deps.accounts, {
        accountId: account.id,
        scopes,
        name: values.name ?? null,
        userId: user?.id ?? null,
      });
      await auditCli(deps, account.id, {
        action: 'key.created',
        targetType: 'key',
        targetId: key.id,
        details: { scopes, name: key.name, userId: key.userId },
      });
      if (values.json) {
        process.stdout.write(
          `${JSON.stringify({ id: key.id, key: secret, scopes, account: account.name, accountId: account.id, userId: key.userId })}\n`,
        );
      } else {
        process.stdout.write(
          `Created key ${key.id} (${scopes.join(', ')}) for ${user ? `user ${user.email} (${user.role})` : 'account'} "${account.name}".\n` +
            'Store it now: it is shown only this once.\n\n' +
            `${secret}\n`,
        );
      }
    } else if (action === 'list') {
      const account = values.account ? await deps.accounts.findAccount(values.account) : undefined;
      if (values.account && !account) throw new ConfigError(`no account "${values.account}"`);
      const list = await deps.accounts.listApiKeys(account?.id);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      if (list.length === 0) process.stdout.write('No API keys yet.\n');
      for (const k of list) {
        const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
        const used = k.lastUsedAt ? `last used ${k.lastUsedAt.toISOString()}` : 'never used';
        process.stdout.write(
          `${k.id}  ${k.prefix}…  ${k.scopes.join(',')}  ${k.name ?? '-'}  ${state}, ${used}\n`,
        );
      }
    } else if (action === 'revoke') {
      if (!target) throw new ConfigError('keys revoke needs the key id or its prefix');
      const k = await deps.accounts.revokeApiKey(target, undefined);
      if (!k) throw new ConfigError(`no key with id or prefix "${target}"`);
      await auditCli(deps, k.accountId, { action: 'key.revoked', targetType: 'key', targetId: k.id });
      process.stdout.write(`Revoked ${k.id} (${k.prefix}…).\n`);
    } else {
      throw new ConfigError(`unknown keys action "${action ?? ''}"; use create, list or revoke`);
    }
  });
}

/**
 * The password for `--password-stdin`: piped in (up to the end of input), or typed at a terminal after
 * a prompt, without being shown. Either way it stays out of the command line, where the shell history
 * and `ps` would keep it.
 */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    let data = '';
    for await (const chunk of process.stdin) data += chunk;
    return data.replace(/\r?\n$/, '');
  }
  // Echo goes off before the prompt shows, so nothing typed after it is ever shown.
  spawnSync('stty', ['-echo'], { stdio: 'inherit' });
  process.stderr.write('Password (not shown): ');
  const lines = createInterface({ input: process.stdin, terminal: false });
  try {
    const [line] = (await once(lines, 'line')) as [string];
    return line;
  } finally {
    lines.close();
    spawnSync('stty', ['echo'], { stdio: 'inherit' });
    process.stderr.write('\n');
  }
}

/** A domain error (an AppError) as a one-line CLI error. */
const asConfigError = (err: unknown) => {
  throw err instanceof AppError || err instanceof Error ? new ConfigError(err.message) : err;
};

function roleOption(raw: string | undefined, fallback: Role): Role {
  if (raw === undefined) return fallback;
  if (!(ROLES as readonly string[]).includes(raw))
    throw new ConfigError(`--role must be one of ${ROLES.join(', ')}`);
  return raw as Role;
}

export async function users(config: Config, log: Logger, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      role: { type: 'string' },
      name: { type: 'string' },
      group: { type: 'string', multiple: true },
      account: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [action] = positionals;
  const password = values['password-stdin'] ? await readPassword() : values.password;
  await withDatabase(config, log, async (deps) => {
    if (action === 'create') {
      if (!values.email)
        throw new ConfigError('users create needs --email (and --password or --password-stdin)');
      const account = await deps.accounts.ensureAccount(values.account ?? DEFAULT_ACCOUNT);
      // The first person of an account owns it, as every console user did before roles.
      const role = roleOption(values.role, 'owner');
      const user = await insertUser(deps, account.id, {
        email: values.email,
        password,
        role,
        name: values.name,
        groups: values.group ?? [],
      }).catch(asConfigError);
      await auditCli(deps, account.id, {
        action: 'user.created',
        targetType: 'user',
        targetId: user.id,
        details: { email: user.email, role: user.role, groups: user.groupIds },
      });
      if (values.json) process.stdout.write(`${JSON.stringify(user)}\n`);
      else
        process.stdout.write(
          `Created user ${user.email} (${user.id}, ${user.role}) in account "${account.name}"` +
            `${password === undefined ? '; without a password, they sign in through the identity provider' : ''}.\n`,
        );
    } else if (action === 'list') {
      const account = values.account ? await deps.accounts.findAccount(values.account) : undefined;
      const list = await deps.users.listUsers(account?.id);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      for (const u of list) {
        process.stdout.write(
          `${u.id}  ${u.email}  ${u.role}  ${u.accountId}  last sign-in ${u.lastLoginAt?.toISOString() ?? 'never'}\n`,
        );
      }
    } else {
      throw new ConfigError(`unknown users action "${action ?? ''}"; use create or list`);
    }
  });
}

export async function groups(config: Config, log: Logger, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { account: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const [action, group, member] = positionals;
  await withDatabase(config, log, async (deps) => {
    const account = await deps.accounts.ensureAccount(values.account ?? DEFAULT_ACCOUNT);
    const named = async (name: string | undefined) => {
      const [found] = name ? await deps.groups.resolveGroups(account.id, [name]) : [];
      if (!found) throw new ConfigError(`no group "${name ?? ''}" in account "${account.name}"`);
      return found;
    };
    if (action === 'create') {
      if (!group) throw new ConfigError('groups create needs a name: groups create <name>');
      const created = await deps.groups.insertGroup({
        id: newId('grp'),
        accountId: account.id,
        name: group.trim(),
      });
      if (!created) throw new ConfigError(`a group named "${group}" exists already`);
      await auditCli(deps, account.id, {
        action: 'group.created',
        targetType: 'group',
        targetId: created.id,
        details: { name: created.name },
      });
      process.stdout.write(
        values.json ? `${JSON.stringify(created)}\n` : `Created group ${created.name} (${created.id}).\n`,
      );
    } else if (action === 'list') {
      const list = await deps.groups.listGroups(account.id);
      if (values.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      if (list.length === 0) process.stdout.write('No groups yet.\n');
      for (const g of list) process.stdout.write(`${g.id}  ${g.name}  ${g.memberIds.length} members\n`);
    } else if (action === 'add-member' || action === 'remove-member') {
      if (!member)
        throw new ConfigError(`groups ${action} needs a group and a user: groups ${action} <group> <email>`);
      const g = await named(group);
      const user = await findMember(deps.users, account.id, member);
      if (!user) throw new ConfigError(`no user "${member}" in account "${account.name}"`);
      if (action === 'add-member') await deps.groups.addMember(account.id, g.id, user.id);
      else await deps.groups.removeMember(account.id, g.id, user.id);
      await auditCli(deps, account.id, {
        action: action === 'add-member' ? 'group.member_added' : 'group.member_removed',
        targetType: 'group',
        targetId: g.id,
        details: { userId: user.id, email: user.email },
      });
      process.stdout.write(
        `${action === 'add-member' ? 'Added' : 'Removed'} ${user.email} ${action === 'add-member' ? 'to' : 'from'} ${g.name}.\n`,
      );
    } else {
      throw new ConfigError(
        `unknown groups action "${action ?? ''}"; use create, list, add-member or remove-member`,
      );
    }
  });
}

export async function secrets(config: Config, log: Logger, args: string[]): Promise<void> {
  if (args[0] !== 'rotate') throw new ConfigError('use: docslurp secrets rotate');
  await withDatabase(config, log, async (deps) => {
    if (!deps.secrets) throw new ConfigError('ENCRYPTION_KEY is not set');
    const { total, rotated } = await rotateSecrets(
      [deps.documents, deps.webhooks, deps.sources],
      deps.secrets,
    );
    process.stdout.write(`Re-encrypted ${rotated} of ${total} stored credentials with the current key.\n`);
  });
}

/** Bucket copies for the backup and restore scripts; progress goes to stderr, data to stdout. */
export async function bucket(config: Config, args: string[]): Promise<void> {
  const [action, dir] = args;
  if (config.objects.kind !== 's3') {
    throw new ConfigError('bucket commands need the S3 object store (OBJECT_STORE=s3 and S3_* settings)');
  }
  const store = new S3ObjectStore(config.objects);
  const note = (line: string) => process.stderr.write(`[bucket] ${line}\n`);
  try {
    if (action === 'list') {
      for await (const o of store.list()) process.stdout.write(`${JSON.stringify(o)}\n`);
    } else if ((action === 'export' || action === 'import') && dir) {
      const report =
        action === 'export' ? await exportBucket(store, dir, note) : await importBucket(store, dir, note);
      note(
        `${action === 'export' ? 'exported' : 'imported'} ${report.objects} objects (${report.bytes} bytes)` +
          (report.vanished.length ? `; ${report.vanished.length} deleted while copying` : '') +
          (report.skipped.length
            ? `; ${action === 'export' ? 'skipped' : 'removed'} ${report.skipped.length}`
            : ''),
      );
      process.stdout.write(`${JSON.stringify(report)}\n`);
    } else {
      throw new ConfigError('usage: docslurp bucket list | bucket export DIR | bucket import DIR');
    }
  } finally {
    await store.close();
  }
}
