import type { DocumentAccess, GrantsInput } from '@service/sdk';
import { sdk } from '../api';
import { type Directory, isManager, ownDirectory, useUser } from '../lib/access';
import { useLoad } from '../lib/hooks';

/** Chosen users and groups (ids), and for a person who cannot list the account, names typed in. */
export interface Chosen {
  users: string[];
  groups: string[];
  /** E-mail addresses and group names, separated by commas. */
  typed: string;
}

export const NOBODY: Chosen = { users: [], groups: [], typed: '' };

export const chosenOf = (g: { users: string[]; groups: string[] } | null | undefined): Chosen =>
  g ? { users: [...g.users], groups: [...g.groups], typed: '' } : NOBODY;

/** As the API takes it: typed words with an @ are people's e-mails, the others group names. */
export function grantsOf(c: Chosen): Required<GrantsInput> {
  const typed = c.typed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    users: [...c.users, ...typed.filter((s) => s.includes('@'))],
    groups: [...c.groups, ...typed.filter((s) => !s.includes('@'))],
  };
}

/**
 * The people and groups an access choice offers: the whole account's for owners and admins, else the
 * person and their own groups (readers and editors may not list the account; they type the others).
 */
export function useDirectory(): { dir: Directory; error: unknown } {
  const user = useUser();
  const manager = isManager(user);
  const loaded = useLoad(
    (signal) =>
      manager
        ? Promise.all([sdk.users.list({ signal }), sdk.groups.list({ signal })])
        : Promise.resolve(undefined),
    [manager],
  );
  if (!manager || !loaded.data) return { dir: ownDirectory(user), error: loaded.error };
  const [users, groups] = loaded.data;
  return { dir: { users, groups, complete: true }, error: loaded.error };
}

const toggled = (list: string[], id: string) =>
  list.includes(id) ? list.filter((x) => x !== id) : [...list, id];

/** Checkboxes of the groups and people an access list may name. `name` keeps two lists' fields apart. */
export function GrantsChooser({
  legend,
  name,
  dir,
  value,
  onChange,
  disabled,
}: {
  legend: string;
  name: string;
  dir: Directory;
  value: Chosen;
  onChange: (c: Chosen) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="grants" disabled={disabled}>
      <legend>{legend}</legend>
      {dir.groups.length === 0 ? (
        <p className="muted small">
          {dir.complete ? 'The account has no groups yet.' : 'You are in no group.'}
        </p>
      ) : (
        <div className="choices">
          {dir.groups.map((g) => (
            <label key={g.id} className="check">
              <input
                type="checkbox"
                name={`${name}-group`}
                value={g.id}
                checked={value.groups.includes(g.id)}
                onChange={() => onChange({ ...value, groups: toggled(value.groups, g.id) })}
              />
              group {g.name}
            </label>
          ))}
        </div>
      )}
      <div className="choices">
        {dir.users.map((u) => (
          <label key={u.id} className="check">
            <input
              type="checkbox"
              name={`${name}-user`}
              value={u.id}
              checked={value.users.includes(u.id)}
              onChange={() => onChange({ ...value, users: toggled(value.users, u.id) })}
            />
            {u.email}
          </label>
        ))}
      </div>
      {dir.complete ? null : (
        <label>
          Others <span className="muted small">(e-mail addresses or group names, separated by commas)</span>
          <input
            type="text"
            name={`${name}-typed`}
            value={value.typed}
            onChange={(e) => onChange({ ...value, typed: e.target.value })}
          />
        </label>
      )}
    </fieldset>
  );
}

/** A document's readers as a choice: its workspace's readers, or only those chosen among them. */
export interface DocumentChoice {
  restricted: boolean;
  chosen: Chosen;
}

export const documentChoiceOf = (a: DocumentAccess | undefined): DocumentChoice => ({
  restricted: !!a,
  chosen: chosenOf(a),
});

export const documentAccessOf = (c: DocumentChoice): GrantsInput | null =>
  c.restricted ? grantsOf(c.chosen) : null;

/** "Who may read it": everyone who reads its workspace, or only the groups and people ticked. */
export function DocumentAccessChoice({
  legend,
  name,
  dir,
  value,
  onChange,
  disabled,
}: {
  legend: string;
  name: string;
  dir: Directory;
  value: DocumentChoice;
  onChange: (c: DocumentChoice) => void;
  disabled?: boolean;
}) {
  return (
    <fieldset className="access-choice" disabled={disabled}>
      <legend>{legend}</legend>
      <label className="check">
        <input
          type="radio"
          name={`${name}-scope`}
          checked={!value.restricted}
          onChange={() => onChange({ ...value, restricted: false })}
        />
        Everyone who may read the workspace
      </label>
      <label className="check">
        <input
          type="radio"
          name={`${name}-scope`}
          checked={value.restricted}
          onChange={() => onChange({ ...value, restricted: true })}
        />
        Only the groups and people chosen <span className="muted small">(owners and admins see it too)</span>
      </label>
      {value.restricted ? (
        <GrantsChooser
          legend="Who may read it"
          name={name}
          dir={dir}
          value={value.chosen}
          onChange={(chosen) => onChange({ ...value, chosen })}
        />
      ) : null}
    </fieldset>
  );
}
