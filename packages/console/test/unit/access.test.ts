import { describe, expect, it } from 'vitest';
import {
  describeDocumentAccess,
  grantsOf,
  isManager,
  mayCreateWorkspaces,
  mayEdit,
  maySeeRuns,
} from '../../src/lib/access.js';

/** The console's copy of the service's rule (access/policy.ts): which buttons a person is shown. */
const person = (role: 'owner' | 'admin' | 'editor' | 'reader', groups: string[] = []) => ({
  id: 'usr_1',
  role,
  groups: groups.map((id) => ({ id, name: id.toUpperCase() })),
});
const none = { users: [], groups: [] };

describe('who is shown the buttons that change a workspace', () => {
  it('owners and admins everywhere, even where no list names them', () => {
    const closed = { read: none, edit: none };
    expect(mayEdit(person('owner'), closed)).toBe(true);
    expect(mayEdit(person('admin'), closed)).toBe(true);
  });

  it('readers nowhere, not even where they are listed as editors', () => {
    expect(mayEdit(person('reader'), null)).toBe(false);
    expect(mayEdit(person('reader', ['grp_a']), { read: none, edit: { users: [], groups: ['grp_a'] } })).toBe(
      false,
    );
  });

  it('editors in an open workspace, and in a restricted one only among its editors', () => {
    expect(mayEdit(person('editor'), null)).toBe(true);
    // Readers of a workspace may not change it, an editor's role notwithstanding.
    expect(mayEdit(person('editor', ['grp_a']), { read: { users: [], groups: ['grp_a'] }, edit: none })).toBe(
      false,
    );
    expect(mayEdit(person('editor', ['grp_a']), { read: none, edit: { users: [], groups: ['grp_a'] } })).toBe(
      true,
    );
    expect(mayEdit(person('editor'), { read: none, edit: { users: ['usr_1'], groups: [] } })).toBe(true);
  });

  it('keeps runs, new workspaces and the admin screens from those whose role lacks them', () => {
    expect([maySeeRuns(person('reader')), mayCreateWorkspaces(person('reader'))]).toEqual([false, false]);
    expect([maySeeRuns(person('editor')), mayCreateWorkspaces(person('editor'))]).toEqual([true, true]);
    expect(['owner', 'admin', 'editor', 'reader'].map((r) => isManager({ role: r as 'owner' }))).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("a document's access in words and as the API takes it", () => {
  const dir = {
    users: [{ id: 'usr_1', email: 'ana@example.com' }],
    groups: [{ id: 'grp_a', name: 'HR' }],
    complete: true,
  };

  it('names groups and people, and keeps ids it cannot name', () => {
    expect(describeDocumentAccess(null, dir)).toBe('Everyone who may read the workspace');
    expect(describeDocumentAccess({ users: ['usr_1', 'usr_9'], groups: ['grp_a'] }, dir)).toBe(
      'Only group HR, ana@example.com, user usr_9',
    );
    expect(describeDocumentAccess(none, dir)).toBe('Nobody but owners and admins');
  });

  it('sorts typed words into e-mails and group names', () => {
    expect(grantsOf({ users: ['usr_1'], groups: [], typed: ' bo@example.com, Board ,, ' })).toEqual({
      users: ['usr_1', 'bo@example.com'],
      groups: ['Board'],
    });
  });
});
