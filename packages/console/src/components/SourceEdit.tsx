import type { Source } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import { useAction } from '../lib/hooks';
import { parsePatterns, patternsOf, sourceLabel, sourceWhere, withPatterns } from '../lib/sources';
import { ActionNote } from './ActionNote';

/** Include and exclude patterns as two boxes, one pattern a line. */
export function PatternFields({
  include,
  exclude,
  onInclude,
  onExclude,
}: {
  include: string;
  exclude: string;
  onInclude: (v: string) => void;
  onExclude: (v: string) => void;
}) {
  return (
    <>
      <label>
        Include only <span className="muted small">(patterns, one a line; empty: everything)</span>
        <textarea
          name="include"
          rows={2}
          placeholder="docs/**"
          value={include}
          onChange={(e) => onInclude(e.target.value)}
        />
      </label>
      <label>
        Leave out <span className="muted small">(patterns, one a line, e.g. *.png or drafts/**)</span>
        <textarea
          name="exclude"
          rows={2}
          placeholder="drafts/**"
          value={exclude}
          onChange={(e) => onExclude(e.target.value)}
        />
      </label>
    </>
  );
}

/**
 * Changes a source in place (PATCH /v1/workspaces/{id}/sources/{sourceId}): its name, schedule and
 * patterns, and for a bucket its keys, which are replaced or removed but never shown (the service
 * answers only whether it has some). Where it reads from stays: a source that moved is a new one.
 * Its next sync applies the new patterns (what they now leave out is removed then).
 */
export function SourceEditForm({
  workspaceId,
  source,
  onDone,
}: {
  workspaceId: string;
  source: Source;
  /** With the source as saved, or nothing when editing was given up. */
  onDone: (saved?: Source) => void;
}) {
  const patterns = patternsOf(source);
  const [name, setName] = useState(source.name ?? '');
  const [interval, setIntervalMinutes] = useState(source.intervalMinutes?.toString() ?? '');
  const [include, setInclude] = useState(patterns.include.join('\n'));
  const [exclude, setExclude] = useState(patterns.exclude.join('\n'));
  const [keyId, setKeyId] = useState('');
  const [secret, setSecret] = useState('');
  const [removeKeys, setRemoveKeys] = useState(false);
  const action = useAction();
  const label = sourceLabel(source);
  // The person asked to edit: the form is where they go next.
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), []);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy) return;
    const credentials =
      source.type !== 's3'
        ? undefined
        : removeKeys
          ? null
          : keyId.trim()
            ? { accessKeyId: keyId.trim(), secretAccessKey: secret }
            : undefined;
    let saved: Source | undefined;
    await action.run(
      async () => {
        saved = await sdk.updateSource(workspaceId, source.id, {
          name: name.trim() || null,
          intervalMinutes: interval ? Number(interval) : null,
          settings: withPatterns(source.settings, parsePatterns(include), parsePatterns(exclude)),
          ...(credentials !== undefined ? { credentials } : {}),
        });
      },
      { failed: `${label} was not changed` },
    );
    if (saved) onDone(saved);
  };

  return (
    <form
      className="key-form"
      onSubmit={save}
      aria-labelledby="edit-source-title"
      data-testid="edit-source"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <h2 id="edit-source-title">Edit {label}</h2>
      <p className="muted small">
        Reads from <code>{sourceWhere(source)}</code>. The next sync applies the changes: what the patterns
        now leave out is removed from the workspace then.
      </p>
      <label>
        Name <span className="muted small">(optional)</span>
        <input
          ref={first}
          type="text"
          name="name"
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <label>
        Sync every … minutes <span className="muted small">(empty: only with "Sync now")</span>
        <input
          type="number"
          name="interval"
          min={1}
          value={interval}
          onChange={(e) => setIntervalMinutes(e.target.value)}
        />
      </label>
      <PatternFields include={include} exclude={exclude} onInclude={setInclude} onExclude={setExclude} />
      {source.type === 's3' ? (
        <fieldset className="access-choice">
          <legend>Access keys</legend>
          <p className="muted small" data-testid="keys-state">
            {source.hasCredentials
              ? 'Keys are stored (encrypted; never shown). New ones replace them.'
              : 'No keys: the bucket is read anonymously.'}
          </p>
          <label>
            New access key id
            <input
              type="text"
              name="accessKeyId"
              autoComplete="off"
              value={keyId}
              disabled={removeKeys}
              onChange={(e) => setKeyId(e.target.value)}
            />
          </label>
          <label>
            New secret access key
            <input
              type="password"
              name="secretAccessKey"
              autoComplete="new-password"
              value={secret}
              disabled={removeKeys}
              onChange={(e) => setSecret(e.target.value)}
            />
          </label>
          {source.hasCredentials ? (
            <label className="check">
              <input type="checkbox" checked={removeKeys} onChange={(e) => setRemoveKeys(e.target.checked)} />
              Remove the stored keys
            </label>
          ) : null}
        </fieldset>
      ) : null}
      <div className="row">
        <button type="submit" className="primary" aria-disabled={action.busy}>
          Save changes
        </button>
        <button type="button" className="link" onClick={() => onDone()}>
          Cancel editing
        </button>
      </div>
      <ActionNote action={action} />
    </form>
  );
}
