import type { SourceType } from '@service/sdk';
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, Status, When } from '../components/common';
import { Listing } from '../components/Listing';
import { PatternFields, SourceEditForm } from '../components/SourceEdit';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { mayEdit, maySeeRuns, useUser } from '../lib/access';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { foundNothing } from '../lib/runs';
import {
  allowedSourceTypes,
  parsePatterns,
  patternsOf,
  SOURCE_TYPES,
  sourceLabel,
  sourceWhere,
  withPatterns,
} from '../lib/sources';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

/** Settings of the add form, per type, as the API takes them. */
function settingsOf(type: SourceType, f: Record<string, string>): Record<string, unknown> {
  if (type === 'folder') return { path: f.path };
  if (type === 's3')
    return {
      bucket: f.bucket,
      ...(f.endpoint ? { endpoint: f.endpoint } : {}),
      ...(f.prefix ? { prefix: f.prefix } : {}),
    };
  const url = f.url ?? '';
  return /sitemap[^/]*\.xml($|\?)/i.test(url) ? { sitemapUrl: url } : { startUrl: url };
}

/** A source's include and exclude patterns, under its name; nothing when it has none. */
function Patterns({ settings }: { settings: Record<string, unknown> }) {
  const { include, exclude } = patternsOf({ settings });
  if (!include.length && !exclude.length) return null;
  return (
    <div className="muted small" data-testid="patterns">
      {include.length ? (
        <div>
          include: <code>{include.join(', ')}</code>
        </div>
      ) : null}
      {exclude.length ? (
        <div>
          exclude: <code>{exclude.join(', ')}</code>
        </div>
      ) : null}
    </div>
  );
}

/** A sync's run as a link, for those who may open runs (readers may not: the words alone). */
function RunLink({ id, runs, children }: { id: string; runs: boolean; children: ReactNode }) {
  return runs ? <Link to={`/runs/${id}`}>{children}</Link> : <>{children}</>;
}

/** A workspace's sources: what each follows, its last sync and the next, "Sync now", add and delete. */
export function SourcesScreen({ workspaceId }: { workspaceId: string }) {
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  // While a sync lists its source, or its run still processes what it found, look again every two
  // seconds: the last sync's result is shown when it is one.
  const list = useLoad(
    (signal) => sdk.listSources(workspaceId, { signal }),
    [workspaceId],
    (d) => (d.sources.some((s) => s.syncRunId || s.lastSync?.status === 'processing') ? 2000 : undefined),
  );
  const action = useAction(list.reload);
  // The form's own outcome, shown under it.
  const adding = useAction(list.reload);
  const [chosen, setType] = useState<SourceType>();
  const [fields, setFields] = useState<Record<string, string>>({});
  const [interval, setIntervalMinutes] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  // The source being edited, and the Edit button to go back to when the form closes.
  const [editing, setEditing] = useState<string>();
  const backTo = useRef<string>(undefined);
  useEffect(() => {
    if (editing === undefined && backTo.current) {
      document.querySelector<HTMLButtonElement>(`[data-edit="${backTo.current}"]`)?.focus();
      backTo.current = undefined;
    }
  }, [editing]);
  // Adding, syncing and deleting sources is for those who may edit the workspace; the rest see the list.
  const user = useUser();
  const editable = workspace ? mayEdit(user, workspace.access) : false;
  const runs = maySeeRuns(user);
  useTitle(`Sources${workspace ? ` · ${workspaceLabel(workspace)}` : ''}`);
  const types = SOURCE_TYPES.filter((t) => allowedSourceTypes(list.data).includes(t.type));
  const type = chosen && types.some((t) => t.type === chosen) ? chosen : (types[0]?.type ?? 'website');

  const field = (name: string) => ({
    name,
    value: fields[name] ?? '',
    onChange: (e: { target: { value: string } }) => setFields((f) => ({ ...f, [name]: e.target.value })),
  });

  const add = (e: FormEvent) => {
    e.preventDefault();
    if (adding.busy) return;
    const trimmed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.trim()]));
    void adding.run(
      async () => {
        await sdk.createSource(workspaceId, {
          type,
          ...(trimmed.name ? { name: trimmed.name } : {}),
          settings: withPatterns(settingsOf(type, trimmed), parsePatterns(include), parsePatterns(exclude)),
          ...(type === 's3' && trimmed.accessKeyId
            ? {
                credentials: {
                  accessKeyId: trimmed.accessKeyId,
                  secretAccessKey: trimmed.secretAccessKey ?? '',
                },
              }
            : {}),
          ...(interval ? { intervalMinutes: Number(interval) } : {}),
        });
        setFields({});
        setIntervalMinutes('');
        setInclude('');
        setExclude('');
      },
      { done: 'The source is added.', failed: 'The source was not added' },
    );
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="sources" />
      <p className="muted">
        Sources keep the workspace in sync with a website, a bucket or a folder: each sync adds new items,
        processes changed ones again, skips unchanged ones and removes those gone from the source.
      </p>
      <ActionNote action={action} />
      <Listing
        state={list}
        items={(d) => d.sources}
        empty="No sources yet."
        label="Sources of the workspace"
        testId="sources"
        stack
        columns={[
          'Source',
          'Type',
          'Last sync',
          'Next sync',
          ...(editable ? [{ label: 'Actions', hidden: true }] : []),
        ]}
        row={(s) => {
          const label = sourceLabel(s);
          return (
            <tr key={s.id} data-source={s.id}>
              <td>
                {label}
                {s.name ? <div className="muted small">{sourceWhere(s)}</div> : null}
                <Patterns settings={s.settings} />
              </td>
              <td data-label="Type">{SOURCE_TYPES.find((t) => t.type === s.type)?.label ?? s.type}</td>
              <td data-label="Last sync" data-testid="last-sync">
                {s.syncRunId ? (
                  <RunLink id={s.syncRunId} runs={runs}>
                    syncing…
                  </RunLink>
                ) : s.lastSync ? (
                  <>
                    <RunLink id={s.lastSync.runId} runs={runs}>
                      <Status value={s.lastSync.status} />
                    </RunLink>
                    {foundNothing({ kind: 'sync', ...s.lastSync }) ? (
                      <>
                        {' '}
                        <span className="status status-muted" data-testid="no-changes">
                          no changes
                        </span>
                      </>
                    ) : null}
                    {/* Syncs that found nothing are folded in the run list: this says they happened. */}
                    <div className="small" data-testid="last-checked">
                      last checked{' '}
                      <When iso={s.lastCheckedAt ?? s.lastSync.finishedAt ?? s.lastSync.startedAt} />
                    </div>
                    {s.lastSync.error ? (
                      <div className="bad-text small">
                        {s.lastSync.error.message}
                        <Details of={`the last sync of ${label}`}>
                          code <code>{s.lastSync.error.code}</code>
                        </Details>
                      </div>
                    ) : null}
                  </>
                ) : (
                  <span className="muted">never</span>
                )}
              </td>
              <td data-label="Next sync">
                {s.nextSyncAt ? <When iso={s.nextSyncAt} /> : <span className="muted">on request</span>}
              </td>
              {editable ? (
                <td className="actions">
                  {/* aria-disabled while it syncs: a disabled button would drop the focus it has. */}
                  <button
                    type="button"
                    aria-label={`Sync now: ${label}`}
                    aria-disabled={s.syncRunId !== null || action.busy}
                    onClick={() =>
                      s.syncRunId === null &&
                      !action.busy &&
                      action.run(() => sdk.syncSource(workspaceId, s.id), {
                        failed: 'The sync did not start',
                      })
                    }
                  >
                    Sync now
                  </button>{' '}
                  <button
                    type="button"
                    data-edit={s.id}
                    aria-label={`Edit ${label}`}
                    aria-expanded={editing === s.id}
                    onClick={() => setEditing(editing === s.id ? undefined : s.id)}
                  >
                    Edit
                  </button>{' '}
                  <ConfirmButton
                    label="Delete"
                    confirmLabel="Delete with its documents"
                    target={`source ${label}`}
                    onConfirm={() =>
                      action.run(() => sdk.deleteSource(workspaceId, s.id), {
                        done: `The source ${label} is deleted, with its documents.`,
                        failed: 'Could not delete the source',
                      })
                    }
                  />
                </td>
              ) : null}
            </tr>
          );
        }}
      />

      {editable && editing && list.data?.sources.some((s) => s.id === editing) ? (
        <SourceEditForm
          key={editing}
          workspaceId={workspaceId}
          source={list.data.sources.find((s) => s.id === editing)!}
          onDone={(saved) => {
            if (!saved) backTo.current = editing;
            setEditing(undefined);
            // Said in the screen's note (which takes the focus), the list reloaded with the change.
            if (saved)
              void action.run(async () => {}, {
                done: `${sourceLabel(saved)} is changed; its next sync applies it.`,
              });
          }}
        />
      ) : null}

      {editable ? (
        <form className="key-form" onSubmit={add} aria-labelledby="new-source-title">
          <h2 id="new-source-title">Add a source</h2>
          <label>
            Type
            <select name="type" value={type} onChange={(e) => setType(e.target.value as SourceType)}>
              {types.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Name <span className="muted small">(optional)</span>
            <input type="text" maxLength={200} {...field('name')} />
          </label>
          {type === 'website' ? (
            <label>
              Start page or sitemap URL
              <input type="url" required placeholder="https://docs.example.com/" {...field('url')} />
            </label>
          ) : null}
          {type === 'folder' ? (
            <label>
              Folder <span className="muted small">(absolute, under a folder the operator allows)</span>
              <input type="text" required placeholder="/srv/handbook" {...field('path')} />
            </label>
          ) : null}
          {type === 's3' ? (
            <>
              <label>
                Endpoint <span className="muted small">(empty for AWS)</span>
                <input type="url" placeholder="https://minio.example.com" {...field('endpoint')} />
              </label>
              <label>
                Bucket
                <input type="text" required {...field('bucket')} />
              </label>
              <label>
                Prefix <span className="muted small">(optional)</span>
                <input type="text" {...field('prefix')} />
              </label>
              <label>
                Access key id <span className="muted small">(stored encrypted)</span>
                <input type="text" autoComplete="off" {...field('accessKeyId')} />
              </label>
              <label>
                Secret access key
                <input type="password" autoComplete="off" {...field('secretAccessKey')} />
              </label>
            </>
          ) : null}
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
          <button type="submit" className="primary" aria-disabled={adding.busy}>
            Add source
          </button>
          <ActionNote action={adding} />
        </form>
      ) : null}
    </section>
  );
}
