import type { GroupStore } from '../../domain/stores.js';
import type { Group } from '../../domain/types.js';
import { newId } from '../../ids.js';
import { removeFromAccessLists } from './access-lists.js';
import { inTransaction, type Pool, type Queryable } from './db.js';
import { GROUP_COLUMNS, type GroupRow, toGroup } from './rows.js';

async function groupById(q: Queryable, accountId: string, groupId: string): Promise<Group | undefined> {
  const r = await q.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS} FROM groups g WHERE g.id = $1 AND g.account_id = $2`,
    [groupId, accountId],
  );
  return r.rows[0] && toGroup(r.rows[0]);
}

const UNIQUE_VIOLATION = '23505';
const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === UNIQUE_VIOLATION;

/** An account's groups and their members. */
export class PgGroupRepository implements GroupStore {
  constructor(private readonly pool: Pool) {}

  async insertGroup(group: { id: string; accountId: string; name: string }): Promise<Group | undefined> {
    const r = await this.pool.query(
      'INSERT INTO groups (id, account_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [group.id, group.accountId, group.name],
    );
    return r.rowCount ? { ...group, memberIds: [], createdAt: new Date() } : undefined;
  }

  getGroup(accountId: string, groupId: string): Promise<Group | undefined> {
    return groupById(this.pool, accountId, groupId);
  }

  async listGroups(accountId: string): Promise<Group[]> {
    const r = await this.pool.query<GroupRow>(
      `SELECT ${GROUP_COLUMNS} FROM groups g WHERE g.account_id = $1 ORDER BY lower(g.name), g.id`,
      [accountId],
    );
    return r.rows.map(toGroup);
  }

  async renameGroup(
    accountId: string,
    groupId: string,
    name: string,
  ): Promise<Group | 'conflict' | undefined> {
    try {
      const r = await this.pool.query('UPDATE groups SET name = $3 WHERE id = $1 AND account_id = $2', [
        groupId,
        accountId,
        name,
      ]);
      if (!r.rowCount) return undefined;
    } catch (err) {
      if (isUniqueViolation(err)) return 'conflict';
      throw err;
    }
    return groupById(this.pool, accountId, groupId);
  }

  deleteGroup(accountId: string, groupId: string): Promise<Group | undefined> {
    return inTransaction(this.pool, async (c) => {
      const group = await groupById(c, accountId, groupId);
      if (!group) return undefined;
      await removeFromAccessLists(c, 'groups', groupId, accountId);
      await c.query('DELETE FROM groups WHERE id = $1', [groupId]);
      return group;
    });
  }

  async addMember(accountId: string, groupId: string, userId: string): Promise<Group | undefined> {
    const r = await this.pool.query(
      `INSERT INTO group_members (group_id, user_id)
       SELECT g.id, u.id FROM groups g JOIN users u ON u.account_id = g.account_id
        WHERE g.id = $1 AND u.id = $2 AND g.account_id = $3
       ON CONFLICT DO NOTHING`,
      [groupId, userId, accountId],
    );
    const group = await groupById(this.pool, accountId, groupId);
    if (!group || (!r.rowCount && !group.memberIds.includes(userId))) return undefined;
    return group;
  }

  async removeMember(accountId: string, groupId: string, userId: string): Promise<Group | undefined> {
    const group = await groupById(this.pool, accountId, groupId);
    if (!group) return undefined;
    await this.pool.query('DELETE FROM group_members WHERE group_id = $1 AND user_id = $2', [
      groupId,
      userId,
    ]);
    return groupById(this.pool, accountId, groupId);
  }

  async resolveGroups(accountId: string, idsOrNames: readonly string[], create = false): Promise<Group[]> {
    if (idsOrNames.length === 0) return [];
    const find = async () => {
      const r = await this.pool.query<GroupRow>(
        `SELECT ${GROUP_COLUMNS} FROM groups g
          WHERE g.account_id = $1
            AND (g.id = ANY($2::text[]) OR lower(g.name) = ANY(SELECT lower(n) FROM unnest($2::text[]) n))
          ORDER BY lower(g.name)`,
        [accountId, [...idsOrNames]],
      );
      return r.rows.map(toGroup);
    };
    const found = await find();
    if (!create) return found;
    const known = (n: string) => found.some((g) => g.id === n || g.name.toLowerCase() === n.toLowerCase());
    const missing = [...new Set(idsOrNames.filter((n) => !known(n)))];
    if (missing.length === 0) return found;
    // A concurrent sign-in may create the same name first: the unique index keeps one, found below.
    for (const name of missing) await this.insertGroup({ id: newId('grp'), accountId, name });
    return find();
  }
}
