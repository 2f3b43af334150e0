import type { Document, Run, Workspace } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { isNotFound, sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { Details, ErrorNote, Hidden, Loading, Status, When } from '../components/common';
import { DocumentName, documentLabel } from '../components/DocumentName';
import { Listing } from '../components/Listing';
import { SettingsPanel } from '../components/Settings';
import { SharingPanel } from '../components/Sharing';
import { Uploader } from '../components/Uploader';
import { WorkspaceHeader } from '../components/WorkspaceHeader';
import { isManager, mayEdit, maySeeRuns, useUser } from '../lib/access';
import { type Action, useAction, useLoad, useTitle } from '../lib/hooks';
import { contentHref, documentHref } from '../lib/links';
import { formatBytes } from '../lib/progress';
import { foundNothing, naturalCompare, runName } from '../lib/runs';
import { sourceLabel } from '../lib/sources';
import { WORKSPACE_NAME_MAX, workspaceLabel } from '../lib/workspaces';
import { Link, navigate } from '../router';

const busy = (d: { status: string }) => d.status === 'queued' || d.status === 'processing';
/** Runs listed on the workspace's page: the latest few; each run's page has the rest. */
const RUNS_SHOWN = 10;

/** Renames the workspace in place: the name as a field, saved or given up (Escape gives up too). */
function RenameForm({ workspace, onDone }: { workspace: Workspace; onDone: (renamed: boolean) => void }) {
  const [name, setName] = useState(workspace.name ?? '');
  const action = useAction();
  // The person just asked to rename: the field is where they go next (as after arming a confirmation).
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || !name.trim()) return;
    if (await action.run(() => sdk.updateWorkspace(workspace.id, { name }), { failed: 'Could not rename' }))
      onDone(true);
  };
  return (
    <form
      className="rename"
      onSubmit={save}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone(false);
      }}
    >
      <label>
        New name of {workspaceLabel(workspace)}
        <input
          type="text"
          name="name"
          value={name}
          required
          maxLength={WORKSPACE_NAME_MAX}
          ref={field}
          onChange={(e) => setName(e.target.value)}
        />
      </label>
      <div className="row">
        <button type="submit" className="primary" aria-disabled={action.busy || !name.trim()}>
          Save name
        </button>
        <button type="button" className="link" onClick={() => onDone(false)}>
          Cancel renaming
        </button>
      </div>
      <ActionNote action={action} />
    </form>
  );
}

/** What deleting a workspace takes with it, in words, for the confirmation. */
function deletionNote(documents: Document[], runsInProgress: number): string {
  const n = documents.length;
  const what = n === 1 ? '1 document' : `${n} documents`;
  const runs =
    runsInProgress === 0
      ? ''
      : ` ${runsInProgress === 1 ? 'Its run in progress stops' : `Its ${runsInProgress} runs in progress stop`}.`;
  return `Deletes ${what} with their original files, extracted text and search index.${runs} This cannot be undone.`;
}

/**
 * The workspace's latest runs, each named by what it was and when. Syncs that found nothing new are
 * folded away (a scheduled source adds one every interval): the Sources tab says when each source
 * was last checked, and a toggle shows them here.
 */
function RunList({ runs, sourceNames }: { runs: Run[]; sourceNames: Map<string, string> }) {
  const [showAll, setShowAll] = useState(false);
  const quiet = runs.filter(foundNothing).length;
  const shown = showAll ? runs : runs.filter((r) => !foundNothing(r));
  return (
    <>
      {shown.length > 0 ? <RunItems runs={shown} sourceNames={sourceNames} /> : null}
      {quiet > 0 ? (
        <button
          type="button"
          className="link"
          aria-pressed={showAll}
          data-testid="show-quiet-syncs"
          onClick={() => setShowAll(!showAll)}
        >
          {quiet === 1 ? 'Show the sync with no changes' : `Show ${quiet} syncs with no changes`}
        </button>
      ) : null}
    </>
  );
}

function RunItems({ runs, sourceNames }: { runs: Run[]; sourceNames: Map<string, string> }) {
  return (
    <ul className="plain" data-testid="runs">
      {runs.map((r) => {
        const c = r.counts;
        const inProgress = c.queued + c.processing;
        return (
          <li key={r.id}>
            <Link to={`/runs/${r.id}`}>
              {runName(r, r.sourceId ? sourceNames.get(r.sourceId) : undefined)}
            </Link>{' '}
            <Status value={r.status} />{' '}
            {foundNothing(r) ? (
              <>
                <span className="status status-muted" data-testid="no-changes">
                  no changes
                </span>{' '}
              </>
            ) : null}
            <span className="muted small">
              <When iso={r.createdAt} />
              {inProgress ? ` · ${inProgress} in progress` : ''}
              {c.failed ? ` · ${c.failed} failed` : ''}
              {c.cancelled ? ` · ${c.cancelled} cancelled` : ''}
            </span>
          </li>
        );
      })}
    </ul>
  );
}

/** Download for everyone who sees it; processing again and deleting for those who may edit the workspace. */
function DocumentActions({ d, action, editable }: { d: Document; action: Action; editable: boolean }) {
  const label = documentLabel(d);
  return (
    <>
      <a href={contentHref(d.id)} download={d.filename}>
        Download<Hidden> {label}</Hidden>
      </a>
      {!editable ? null : d.status === 'cancelled' || d.status === 'failed' ? (
        <button
          type="button"
          aria-disabled={action.busy}
          onClick={() =>
            !action.busy &&
            action.run(() => sdk.reprocessDocument(d.id), {
              done: `${label} is queued to be processed again.`,
              failed: `Could not process ${label} again`,
            })
          }
        >
          Process again<Hidden>: {label}</Hidden>
        </button>
      ) : null}
      {editable ? (
        <ConfirmButton
          label="Delete"
          confirmLabel="Delete for good"
          target={label}
          onConfirm={() =>
            action.run(() => sdk.deleteDocument(d.id), {
              done: `${label} is deleted.`,
              failed: 'Could not delete',
            })
          }
        />
      ) : null}
    </>
  );
}

export function WorkspaceScreen({ id }: { id: string }) {
  const user = useUser();
  const { data, error, reload } = useLoad(
    (signal) =>
      Promise.all([
        sdk.getWorkspace(id, { signal }),
        sdk.listDocuments(id, { signal }),
        // A reader may not list runs (they need the ingest scope): it reads documents only.
        maySeeRuns(user)
          ? sdk.listRuns(id, { limit: RUNS_SHOWN }, { signal })
          : Promise.resolve({ runs: [] }),
        sdk.listSources(id, { signal }),
      ]),
    [id],
    ([, { documents }, { runs }]) => (documents.some(busy) || runs.some(busy) ? 2000 : undefined),
  );
  const action = useAction(reload);
  // Deleting the workspace leaves the screen: nothing to reload, and its error shows beside its button.
  const removal = useAction();
  const [renaming, setRenaming] = useState(false);
  const renameButton = useRef<HTMLButtonElement>(null);
  const refocusRename = useRef(false);
  useEffect(() => {
    if (!renaming && refocusRename.current) {
      refocusRename.current = false;
      renameButton.current?.focus();
    }
  }, [renaming]);
  useTitle(data ? workspaceLabel(data[0]) : 'Workspace');

  if (error && isNotFound(error)) {
    return (
      <section>
        <h1>Workspace not found</h1>
        <p>
          There is no workspace <code>{id}</code> in your account.{' '}
          <Link to="/workspaces">All workspaces</Link>
        </p>
      </section>
    );
  }
  if (error && !data) return <ErrorNote error={error} />;
  if (!data) return <Loading />;
  const [workspace, { documents }, { runs }, { sources }] = data;
  const sourceNames = new Map(sources.map((s) => [s.id, sourceLabel(s)]));
  const label = workspaceLabel(workspace);
  // Readers (and editors outside its editors) see no button the service would refuse them.
  const editable = mayEdit(user, workspace.access);

  return (
    <section>
      <WorkspaceHeader id={id} workspace={workspace} current="documents" />
      <p className="muted small">
        <code>{workspace.id}</code> · created <When iso={workspace.createdAt} />
        {renaming || !editable ? null : (
          <>
            {' '}
            ·{' '}
            <button ref={renameButton} type="button" className="link small" onClick={() => setRenaming(true)}>
              Rename<Hidden> {label}</Hidden>
            </button>
          </>
        )}
      </p>
      {renaming ? (
        <RenameForm
          workspace={workspace}
          onDone={(renamed) => {
            refocusRename.current = true;
            setRenaming(false);
            if (renamed) reload();
          }}
        />
      ) : null}

      {editable ? (
        <>
          <h2>Add documents</h2>
          <Uploader workspaceId={id} onUploaded={(r) => navigate(`/runs/${r.run.id}`)} />
        </>
      ) : null}

      {runs.length > 0 ? (
        <>
          <h2>Runs</h2>
          <RunList runs={runs} sourceNames={sourceNames} />
        </>
      ) : null}

      <h2>Documents</h2>
      <ActionNote action={action} />
      <Listing
        state={{ data: documents, error }}
        items={(docs) => [...docs].sort((a, b) => naturalCompare(documentLabel(a), documentLabel(b)))}
        empty={
          editable ? (
            <>
              This workspace has no documents yet. Add files above, or{' '}
              <Link to={`/workspaces/${id}/sources`}>a source</Link> that keeps it in sync with a website, a
              bucket or a folder.
            </>
          ) : (
            'This workspace has no documents you may read yet.'
          )
        }
        label="Documents of the workspace"
        testId="documents"
        stack
        columns={[
          'Document',
          'State',
          'Size',
          'Pages',
          'Passages',
          'Added',
          { label: 'Actions', hidden: true },
        ]}
        row={(d) => (
          <tr key={d.id} data-document={d.filename}>
            <td>
              <Link to={documentHref(d.id, { mediaType: d.mediaType })}>
                <DocumentName filename={d.filename} sourceItem={d.sourceItem} />
              </Link>
              {d.access ? (
                <div className="muted small" data-testid="restricted">
                  only some readers
                </div>
              ) : null}
              {d.error && d.status !== 'cancelled' ? (
                <div className="small bad-text">
                  {d.error.message}
                  <Details of={d.filename}>
                    code <code>{d.error.code}</code>
                  </Details>
                </div>
              ) : null}
            </td>
            <td data-label="State">
              <Status value={d.status} />
              {busy(d) ? <span className="muted small"> {d.stage}</span> : null}
            </td>
            {/* Short numbers: side by side on a phone, one line for the three. */}
            <td data-label="Size" className="inline">
              {d.sizeBytes === null ? '–' : formatBytes(d.sizeBytes)}
            </td>
            <td data-label="Pages" className="inline">
              {d.pageCount ?? '–'}
            </td>
            <td data-label="Passages" className="inline">
              {d.chunkCount ?? '–'}
            </td>
            <td data-label="Added">
              <When iso={d.createdAt} />
            </td>
            <td className="actions">
              <DocumentActions d={d} action={action} editable={editable} />
            </td>
          </tr>
        )}
      />

      <SettingsPanel workspace={workspace} onChanged={reload} />

      <SharingPanel workspace={workspace} onChanged={reload} />

      {/* Deleting a workspace is for owners and admins (DELETE /v1/workspaces/{id}). */}
      {isManager(user) ? (
        <>
          <h2>Delete the workspace</h2>
          <p className="muted" data-testid="delete-note">
            {deletionNote(
              documents,
              runs.filter((r) => r.status === 'processing' || r.status === 'paused').length,
            )}
          </p>
          <ConfirmButton
            label="Delete workspace"
            confirmLabel={`Delete ${label} and its ${documents.length === 1 ? 'document' : `${documents.length} documents`}`}
            keepLabel="Keep it"
            target={label}
            onConfirm={() =>
              removal.run(
                async () => {
                  await sdk.deleteWorkspace(id);
                  navigate('/workspaces');
                },
                { failed: 'Could not delete the workspace' },
              )
            }
          />
          <ActionNote action={removal} />
        </>
      ) : null}
    </section>
  );
}
