import type { Workspace } from '@service/sdk';
import { type FormEvent, useEffect, useState } from 'react';
import { sdk } from '../api';
import { mayEdit, useUser } from '../lib/access';
import { useAction, useLoad } from '../lib/hooks';
import { WORKSPACE_DESCRIPTION_MAX, WORKSPACE_NAME_MAX } from '../lib/workspaces';
import { ActionNote } from './ActionNote';

/** A language as people read it: "German (de)", "Automatic: each document its own". */
export function languageName(code: string, names: Map<string, string>): string {
  if (code === 'auto') return 'Automatic: each document in its own, detected';
  const name = names.get(code);
  return name ? `${name} (${code})` : code;
}

/**
 * A workspace's settings: its name, description and language. Everyone who sees the workspace reads
 * them; those who may edit it (PATCH /v1/workspaces/{id} without `access` needs an editor among its
 * editors, as uploads do) get the form. The languages offered are the ones the service lists in
 * GET /v1/formats; what it refuses anyway, it says in its own words under the form.
 */
export function SettingsPanel({ workspace, onChanged }: { workspace: Workspace; onChanged: () => void }) {
  const user = useUser();
  const editable = mayEdit(user, workspace.access);
  const formats = useLoad((signal) => sdk.listFormats({ signal }), []);
  const names = new Map((formats.data?.languages ?? []).map((l) => [l.code, l.name]));
  const [name, setName] = useState(workspace.name ?? '');
  const [description, setDescription] = useState(workspace.description ?? '');
  const [language, setLanguage] = useState(workspace.language);
  const action = useAction(onChanged);
  // Renamed elsewhere (the Rename link above), or saved here: the form shows what is stored.
  useEffect(() => setName(workspace.name ?? ''), [workspace.name]);
  useEffect(() => setDescription(workspace.description ?? ''), [workspace.description]);
  useEffect(() => setLanguage(workspace.language), [workspace.language]);

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || !name.trim()) return;
    void action.run(
      () =>
        sdk.updateWorkspace(workspace.id, {
          name: name.trim(),
          description: description.trim() === '' ? null : description.trim(),
          language,
        }),
      {
        done:
          language === workspace.language
            ? 'Saved.'
            : 'Saved: documents processed from now on are read in the new language; process the others again to re-index them.',
        failed: 'The settings were not saved',
      },
    );
  };

  // The workspace's language even when the list does not name it (a server newer than this list).
  const codes = ['auto', ...(formats.data?.languages ?? []).map((l) => l.code)];
  if (!codes.includes(workspace.language)) codes.push(workspace.language);

  return (
    <section aria-labelledby="settings-title" data-testid="settings">
      <h2 id="settings-title">Settings</h2>
      {editable ? (
        <form className="key-form" onSubmit={save} aria-labelledby="settings-title">
          <label>
            Name
            <input
              type="text"
              name="name"
              required
              maxLength={WORKSPACE_NAME_MAX}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          </label>
          <label>
            Description <span className="muted small">(optional)</span>
            <textarea
              name="description"
              rows={3}
              maxLength={WORKSPACE_DESCRIPTION_MAX}
              value={description}
              onChange={(e) => setDescription(e.target.value)}
            />
          </label>
          <label>
            Language <span className="muted small">(of its documents and of short questions)</span>
            <select name="language" value={language} onChange={(e) => setLanguage(e.target.value)}>
              {codes.map((code) => (
                <option key={code} value={code}>
                  {languageName(code, names)}
                </option>
              ))}
            </select>
          </label>
          <p className="muted small">
            A new language applies to documents processed from then on; those already indexed keep theirs
            until they are processed again.
          </p>
          <button type="submit" className="primary" aria-disabled={action.busy || !name.trim()}>
            Save settings
          </button>
          <ActionNote action={action} />
        </form>
      ) : (
        <dl className="facts" data-testid="settings-summary">
          <dt>Name</dt>
          <dd>{workspace.name ?? <span className="muted">none</span>}</dd>
          <dt>Description</dt>
          <dd>{workspace.description ?? <span className="muted">none</span>}</dd>
          <dt>Language</dt>
          <dd>{languageName(workspace.language, names)}</dd>
        </dl>
      )}
    </section>
  );
}
