import type { Source, SourceType } from '@service/sdk';
import { type FormEvent, useState } from 'react';
import { sdk } from '../api';
import { ConfirmButton } from '../components/ConfirmButton';
import { ErrorNote, Loading, Status, TableScroll, When } from '../components/common';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { useLoad, useTitle } from '../lib/hooks';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

const TYPES: { type: SourceType; label: string }[] = [
  { type: 'website', label: 'Website' },
  { type: 's3', label: 'S3 bucket' },
  { type: 'folder', label: 'Folder on the server' },
];

/** Where a source reads from, in one line. */
export function sourceWhere(s: Source): string {
  const v = s.settings as Record<string, string | undefined>;
  if (s.type === 's3') return `s3://${v.bucket}/${v.prefix ?? ''}`;
  if (s.type === 'folder') return v.path ?? '';
  return v.sitemapUrl ?? v.startUrl ?? '';
}

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

/** A workspace's sources: what each follows, its last sync and the next, "Sync now", add and delete. */
export function SourcesScreen({ workspaceId }: { workspaceId: string }) {
  const { data: workspace } = useLoad((signal) => sdk.getWorkspace(workspaceId, { signal }), [workspaceId]);
  // While a sync lists its source, look again every two seconds.
  const { data, error, reload } = useLoad(
    (signal) => sdk.listSources(workspaceId, { signal }),
    [workspaceId],
    (d) => (d.sources.some((s) => s.syncRunId) ? 2000 : undefined),
  );
  const [type, setType] = useState<SourceType>('website');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [interval, setIntervalMinutes] = useState('');
  const [actionError, setActionError] = useState<unknown>();
  useTitle(`Sources${workspace ? ` · ${workspaceLabel(workspace)}` : ''}`);

  const field = (name: string) => ({
    name,
    value: fields[name] ?? '',
    onChange: (e: { target: { value: string } }) => setFields((f) => ({ ...f, [name]: e.target.value })),
  });

  const act = async (what: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await what();
      reload();
    } catch (err) {
      setActionError(err);
    }
  };

  const add = (e: FormEvent) => {
    e.preventDefault();
    void act(async () => {
      const trimmed = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.trim()]));
      await sdk.createSource(workspaceId, {
        type,
        ...(trimmed.name ? { name: trimmed.name } : {}),
        settings: settingsOf(type, trimmed),
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
    });
  };

  return (
    <section>
      <WorkspaceHeader id={workspaceId} workspace={workspace} current="sources" />
      <p className="muted">
        Sources keep the workspace in sync with a website, a bucket or a folder: each sync adds new items,
        processes changed ones again, skips unchanged ones and removes those gone from the source.
      </p>
      {error ? <ErrorNote error={error} /> : null}
      {!data && !error ? <Loading /> : null}
      {data && data.sources.length === 0 ? <p className="muted">No sources yet.</p> : null}
      {data && data.sources.length > 0 ? (
        <TableScroll label="Sources of the workspace">
          <table data-testid="sources">
            <thead>
              <tr>
                <th>Source</th>
                <th>Type</th>
                <th>Last sync</th>
                <th>Next sync</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {data.sources.map((s) => (
                <tr key={s.id} data-source={s.id}>
                  <td>
                    {s.name ?? sourceWhere(s)}
                    {s.name ? <div className="muted small">{sourceWhere(s)}</div> : null}
                  </td>
                  <td>{TYPES.find((t) => t.type === s.type)?.label ?? s.type}</td>
                  <td data-testid="last-sync">
                    {s.syncRunId ? (
                      <Link to={`/runs/${s.syncRunId}`}>syncing…</Link>
                    ) : s.lastSync ? (
                      <>
                        <Link to={`/runs/${s.lastSync.runId}`}>
                          <Status value={s.lastSync.status} />
                        </Link>{' '}
                        <When iso={s.lastSync.finishedAt ?? s.lastSync.startedAt} />
                        {s.lastSync.error ? (
                          <div className="bad-text small">
                            <code>{s.lastSync.error.code}</code> {s.lastSync.error.message}
                          </div>
                        ) : null}
                      </>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td>
                    {s.nextSyncAt ? <When iso={s.nextSyncAt} /> : <span className="muted">on request</span>}
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      aria-label={`Sync now: ${s.name ?? sourceWhere(s)}`}
                      disabled={s.syncRunId !== null}
                      onClick={() => act(() => sdk.syncSource(workspaceId, s.id))}
                    >
                      Sync now
                    </button>{' '}
                    <ConfirmButton
                      label="Delete"
                      confirmLabel="Delete with its documents"
                      target={`source ${s.name ?? sourceWhere(s)}`}
                      onConfirm={() => act(() => sdk.deleteSource(workspaceId, s.id))}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      {actionError ? <ErrorNote error={actionError} title="That did not work" /> : null}

      <form className="key-form" onSubmit={add} aria-labelledby="new-source-title">
        <h2 id="new-source-title">Add a source</h2>
        <label>
          Type
          <select name="type" value={type} onChange={(e) => setType(e.target.value as SourceType)}>
            {TYPES.map((t) => (
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
        <button type="submit" className="primary">
          Add source
        </button>
      </form>
    </section>
  );
}
