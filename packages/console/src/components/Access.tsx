import { sdk } from '../api';
import {
  type Chosen,
  type Directory,
  type DocumentChoice,
  isManager,
  ownDirectory,
  useUser,
} from '../lib/access';
import { useLoad } from '../lib/hooks';

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
