import type { AuditEvent, ListAuditParams } from '@service/sdk';
import { type FormEvent, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { Details, When } from '../components/common';
import { Listing } from '../components/Listing';
import { isManager, useUser } from '../lib/access';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { navigate, useLocation } from '../router';
import { NotForYou } from './People';

const PAGE = 50;
const FILTERS = ['actor', 'action', 'target', 'since', 'until'] as const;
type Filter = (typeof FILTERS)[number];

/** A datetime-local field's value (the person's own time) as the API's ISO time, or undefined. */
function isoOf(local: string | null): string | undefined {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const OUTCOME_TONE: Record<AuditEvent['outcome'], string> = { success: 'ok', failure: 'bad', denied: 'warn' };

export function AuditScreen() {
  const me = useUser();
  return isManager(me) ? <AuditLog /> : <NotForYou what="Audit log" />;
}

/**
 * The account's audit log, newest first, filtered by who, what, on what and when. The filters live
 * in the URL, so that a filtered view can be bookmarked and sent to a colleague.
 */
function AuditLog() {
  const { params } = useLocation();
  const applied = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? ''])) as Record<Filter, string>;
  const [fields, setFields] = useState(applied);
  const [older, setOlder] = useState<{ events: AuditEvent[]; next: string | null }>();
  const query: ListAuditParams = {};
  for (const f of ['actor', 'action', 'target'] as const) if (applied[f]) query[f] = applied[f];
  for (const f of ['since', 'until'] as const) {
    const iso = isoOf(applied[f]);
    if (iso) query[f] = iso;
  }
  const key = JSON.stringify(query);
  const first = useLoad(
    (signal) => {
      setOlder(undefined);
      return sdk.audit.list({ ...query, limit: PAGE }, { signal });
    },
    [key],
  );
  const action = useAction();
  useTitle('Audit log');

  const events = [...(first.data?.events ?? []), ...(older?.events ?? [])];
  const next = older ? older.next : first.data?.nextCursor;

  const filter = (e: FormEvent) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const f of FILTERS) if (fields[f].trim()) q.set(f, fields[f].trim());
    const s = q.toString();
    navigate(`/audit${s ? `?${s}` : ''}`);
  };
  const loadOlder = () =>
    next &&
    action.run(
      async () => {
        const page = await sdk.audit.list({ ...query, limit: PAGE, cursor: next });
        setOlder({ events: [...(older?.events ?? []), ...page.events], next: page.nextCursor });
      },
      { failed: 'Could not load older events' },
    );
  const field = (f: Filter) => ({
    name: f,
    value: fields[f],
    onChange: (e: { target: { value: string } }) => setFields((all) => ({ ...all, [f]: e.target.value })),
  });

  return (
    <section>
      <h1>Audit log</h1>
      <p className="muted">
        Who did what in the account: sign-ins, changes of people, groups, roles, access and keys, deletions,
        downloads, sources and webhooks. Nobody can change it; it keeps events for{' '}
        <code>AUDIT_RETENTION_DAYS</code> (a year unless set).
      </p>
      <form className="key-form filters-form" onSubmit={filter} aria-labelledby="audit-filter-title">
        <h2 id="audit-filter-title">Filter</h2>
        <label>
          Who <span className="muted small">(e-mail, key prefix, or id)</span>
          <input type="text" maxLength={320} {...field('actor')} />
        </label>
        <label>
          Action <span className="muted small">(e.g. user.role_changed, or user)</span>
          <input type="text" maxLength={100} {...field('action')} />
        </label>
        <label>
          Target <span className="muted small">(id of what was acted on)</span>
          <input type="text" maxLength={100} {...field('target')} />
        </label>
        <label>
          From
          <input type="datetime-local" {...field('since')} />
        </label>
        <label>
          Until
          <input type="datetime-local" {...field('until')} />
        </label>
        <div className="row">
          <button type="submit" className="primary">
            Show events
          </button>
        </div>
      </form>
      <h2>Events</h2>
      <ActionNote action={action} />
      <Listing
        state={{ data: first.data ? events : undefined, error: first.error }}
        items={(list) => list}
        empty={Object.keys(query).length ? 'No event matches these filters.' : 'Nothing happened yet.'}
        label="Audit events"
        testId="audit-events"
        stack
        columns={['When', 'Who', 'Action', 'Target', 'Outcome']}
        row={(e) => (
          <tr key={e.id} data-action={e.action}>
            <td>
              <When iso={e.at} />
            </td>
            <td data-label="Who" className="people-email">
              {e.actor}
              {e.clientAddress ? <div className="muted small">from {e.clientAddress}</div> : null}
            </td>
            <td data-label="Action">
              <code className="event-type">{e.action}</code>
            </td>
            <td data-label="Target">
              {e.targetId ? (
                <>
                  {e.targetType} <code>{e.targetId}</code>
                </>
              ) : (
                <span className="muted">–</span>
              )}
              {Object.keys(e.details).length ? (
                <Details of={`${e.action} at ${e.at}`}>
                  <pre className="small">{JSON.stringify(e.details, null, 2)}</pre>
                </Details>
              ) : null}
            </td>
            <td data-label="Outcome">
              <span className={`status status-${OUTCOME_TONE[e.outcome]}`}>{e.outcome}</span>
            </td>
          </tr>
        )}
      >
        {next ? (
          <button type="button" aria-disabled={action.busy} onClick={() => !action.busy && loadOlder()}>
            Older events
          </button>
        ) : null}
      </Listing>
    </section>
  );
}
