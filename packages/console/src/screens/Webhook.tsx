import type { WebhookDelivery, WebhookDeliveryStatus } from '@service/sdk';
import { useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { Details, ErrorNote, Hidden, Loading, Status, When } from '../components/common';
import { Listing } from '../components/Listing';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { Link } from '../router';

const PAGE = 20;
/** While a delivery is pending, the list is fetched again this often to show its next attempt. */
const REFRESH_MS = 5000;

/** What the last attempt came to, in a few words. */
function lastAnswer(d: WebhookDelivery): string {
  const last = d.attempts.at(-1);
  if (!last) return 'not sent yet';
  if (!last.finishedAt) return 'being sent';
  if (last.statusCode !== null) return `HTTP ${last.statusCode}`;
  return last.error ?? 'no answer';
}

/** The run or document an event is about, as a link to its screen. */
function Subject({ d }: { d: WebhookDelivery }) {
  const e = d.event;
  if (e.type === 'document.ready' || e.type === 'document.failed')
    return <Link to={`/documents/${e.data.id}`}>{e.data.filename}</Link>;
  return <Link to={`/runs/${e.data.id}`}>run {e.data.id}</Link>;
}

function Attempts({ d }: { d: WebhookDelivery }) {
  return (
    <Details of={`delivery ${d.id}`}>
      <p>
        Event <code>{d.event.id}</code> (the <code>webhook-id</code> of every attempt)
      </p>
      <ol className="plain" data-testid="attempts">
        {d.attempts.map((a) => (
          <li key={a.number}>
            Attempt {a.number}
            {a.manual ? ' (redelivery)' : ''}, <When iso={a.startedAt} />:{' '}
            {a.finishedAt ? (a.statusCode !== null ? `HTTP ${a.statusCode}` : 'no answer') : 'being sent'}
            {a.error ? <div className="bad-text">{a.error}</div> : null}
            {a.response ? <pre className="small">{a.response}</pre> : null}
          </li>
        ))}
      </ol>
    </Details>
  );
}

/** One endpoint: its deliveries, newest first, with every attempt; redeliver any of them. */
export function WebhookScreen({ id }: { id: string }) {
  const endpoint = useLoad((signal) => sdk.getWebhook(id, { signal }), [id]);
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  const [older, setOlder] = useState<{ deliveries: WebhookDelivery[]; next: string | null }>();
  const first = useLoad(
    (signal) => sdk.listWebhookDeliveries(id, { limit: PAGE, ...(status ? { status } : {}) }, { signal }),
    [id, status],
    (page) => (page.deliveries.some((d) => d.status === 'pending') ? REFRESH_MS : undefined),
  );
  useTitle(endpoint.data ? `Webhook ${endpoint.data.description ?? endpoint.data.url}` : 'Webhook');

  const deliveries = [...(first.data?.deliveries ?? []), ...(older?.deliveries ?? [])];
  const next = older ? older.next : first.data?.next;

  const action = useAction();
  const loadOlder = () =>
    next &&
    action.run(
      async () => {
        const page = await sdk.listWebhookDeliveries(id, {
          limit: PAGE,
          before: next,
          ...(status ? { status } : {}),
        });
        setOlder({ deliveries: [...(older?.deliveries ?? []), ...page.deliveries], next: page.next });
      },
      { failed: 'Could not load older deliveries' },
    );

  const redeliver = (d: WebhookDelivery) =>
    action.run(
      async () => {
        await sdk.redeliverWebhook(id, d.id);
        setOlder(undefined);
        first.reload();
      },
      { done: `${d.event.type} of ${d.event.data.id} is being sent again.`, failed: 'Could not redeliver' },
    );

  if (endpoint.error) return <ErrorNote error={endpoint.error} title="This endpoint cannot be shown" />;
  if (!endpoint.data) return <Loading />;
  const w = endpoint.data;
  return (
    <section>
      <p className="crumbs">
        <Link to="/webhooks">Webhooks</Link> / {w.description ?? w.url}
      </p>
      <h1>{w.description ?? w.url}</h1>
      <dl className="facts">
        <dt>URL</dt>
        <dd>{w.url}</dd>
        <dt>Events</dt>
        <dd>
          {w.events.map((e, i) => (
            <span key={e}>
              {i > 0 ? ', ' : ''}
              <span className="event-type">{e}</span>
            </span>
          ))}
        </dd>
        <dt>Deliveries</dt>
        <dd>
          {w.deliveries.succeeded} delivered, {w.deliveries.pending} pending, {w.deliveries.failed} failed
        </dd>
        <dt>Created</dt>
        <dd>
          <When iso={w.createdAt} />
        </dd>
      </dl>

      <h2>Deliveries</h2>
      <p>
        <label>
          Show{' '}
          <select
            value={status}
            onChange={(e) => {
              setOlder(undefined);
              setStatus(e.target.value as WebhookDeliveryStatus | '');
            }}
          >
            <option value="">all</option>
            <option value="pending">pending</option>
            <option value="succeeded">delivered</option>
            <option value="failed">failed</option>
          </select>
        </label>
      </p>
      <ActionNote action={action} />
      <Listing
        state={{ data: first.data ? deliveries : undefined, error: first.error }}
        items={(d) => d}
        empty="No deliveries yet."
        label="Deliveries"
        testId="deliveries"
        columns={[
          'Event',
          'About',
          'State',
          'Attempts',
          'Last answer',
          'Next attempt',
          { label: 'Actions', hidden: true },
        ]}
        row={(d) => (
          <tr key={d.id} data-delivery={d.id}>
            <td>
              <code className="event-type">{d.event.type}</code>
              <div className="muted small">
                <When iso={d.event.timestamp} />
              </div>
            </td>
            <td>
              <Subject d={d} />
            </td>
            <td>
              <Status value={d.status} />
            </td>
            <td>
              {d.attempts.length}
              <Attempts d={d} />
            </td>
            <td>{lastAnswer(d)}</td>
            <td>
              <When iso={d.nextAttemptAt} />
            </td>
            <td className="actions">
              <button type="button" aria-disabled={action.busy} onClick={() => !action.busy && redeliver(d)}>
                Redeliver
                <Hidden>
                  {' '}
                  {d.event.type} of {d.event.data.id}
                </Hidden>
              </button>
            </td>
          </tr>
        )}
      >
        {next ? (
          <button type="button" onClick={loadOlder}>
            Older deliveries
          </button>
        ) : null}
      </Listing>
    </section>
  );
}
