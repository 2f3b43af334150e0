import type { WebhookEventType } from '@service/sdk';
import { type FormEvent, useRef, useState } from 'react';
import { sdk } from '../api';
import { ActionNote } from '../components/ActionNote';
import { ConfirmButton } from '../components/ConfirmButton';
import { When } from '../components/common';
import { Listing } from '../components/Listing';
import { NewSecret } from '../components/NewSecret';
import { useAction, useLoad, useTitle } from '../lib/hooks';
import { Link } from '../router';

export const EVENTS: { type: WebhookEventType; help: string }[] = [
  { type: 'run.completed', help: 'a run finished, with at least one usable document' },
  { type: 'run.failed', help: 'a run finished and every document failed' },
  { type: 'run.cancelled', help: 'a run was cancelled' },
  { type: 'document.ready', help: 'a document is searchable' },
  { type: 'document.failed', help: 'a document ended without text (failed, or needs OCR)' },
];

/** The account's webhook endpoints: register one (its secret shown once), see how deliveries fare, delete. */
export function WebhooksScreen() {
  const hooks = useLoad((signal) => sdk.listWebhooks({ signal }), []);
  const action = useAction(hooks.reload);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(['run.completed', 'run.failed']);
  const [secret, setSecret] = useState<string>();
  const urlField = useRef<HTMLInputElement>(null);
  useTitle('Webhooks');

  const create = (e: FormEvent) => {
    e.preventDefault();
    if (action.busy || events.length === 0) return;
    void action.run(
      async () => {
        const created = await sdk.createWebhook({
          url: url.trim(),
          events,
          ...(description.trim() ? { description: description.trim() } : {}),
        });
        setSecret(created.secret);
        setUrl('');
        setDescription('');
      },
      { failed: 'The endpoint was not saved' },
    );
  };

  const toggle = (t: WebhookEventType) =>
    setEvents((all) =>
      all.includes(t)
        ? all.filter((x) => x !== t)
        : EVENTS.map((x) => x.type).filter((x) => x === t || all.includes(x)),
    );

  return (
    <section>
      <h1>Webhooks</h1>
      <p className="muted">
        DocSlurp tells your servers when work finishes: a signed POST to each endpoint for the events it
        wants, retried for a day until it is answered with a 2xx. Check deliveries with the SDK's{' '}
        <code>verifyWebhook</code> and the endpoint's secret.
      </p>
      {secret ? (
        <NewSecret
          secret={secret}
          noun="secret"
          label="Signing secret"
          testId="new-webhook-secret"
          onDone={() => {
            setSecret(undefined);
            urlField.current?.focus();
          }}
        >
          <strong>The endpoint's signing secret.</strong> Copy it to the server that receives the deliveries
          now: it is shown only this once. Deliveries are signed with it; check each one before you trust it.
        </NewSecret>
      ) : null}
      <form className="key-form" onSubmit={create} aria-labelledby="new-webhook-title">
        <h2 id="new-webhook-title">Add an endpoint</h2>
        <label>
          URL <span className="muted small">(where deliveries are POSTed; https is advised)</span>
          <input
            ref={urlField}
            type="url"
            name="url"
            required
            maxLength={2048}
            placeholder="https://example.com/hooks/docslurp"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </label>
        <label>
          Description <span className="muted small">(what it is for)</span>
          <input
            type="text"
            name="description"
            maxLength={200}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label key={ev.type} className="check">
              <input
                type="checkbox"
                name="event"
                value={ev.type}
                checked={events.includes(ev.type)}
                onChange={() => toggle(ev.type)}
              />
              <code>{ev.type}</code> <span className="muted small">{ev.help}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary" aria-disabled={events.length === 0 || action.busy}>
          Add endpoint
        </button>
      </form>
      <ActionNote action={action} />

      <h2>Endpoints of your account</h2>
      <Listing
        state={hooks}
        items={(d) => d.webhooks}
        empty="No endpoints yet."
        label="Endpoints of your account"
        testId="webhooks"
        columns={[
          'Endpoint',
          'Events',
          'Pending',
          'Delivered',
          'Failed',
          'Created',
          { label: 'Actions', hidden: true },
        ]}
        row={(w) => (
          <tr key={w.id} data-webhook={w.id}>
            <td>
              <Link to={`/webhooks/${w.id}`}>{w.description ?? w.url}</Link>
              {w.description ? <div className="muted small">{w.url}</div> : null}
            </td>
            <td>
              {w.events.map((e, i) => (
                <span key={e}>
                  {i > 0 ? ', ' : ''}
                  <span className="event-type">{e}</span>
                </span>
              ))}
            </td>
            <td>{w.deliveries.pending}</td>
            <td>{w.deliveries.succeeded}</td>
            <td className={w.deliveries.failed ? 'bad-text' : undefined}>{w.deliveries.failed}</td>
            <td>
              <When iso={w.createdAt} />
            </td>
            <td className="actions">
              <ConfirmButton
                label="Delete"
                confirmLabel="Delete now"
                target={`endpoint ${w.description ?? w.url}`}
                onConfirm={() =>
                  action.run(() => sdk.deleteWebhook(w.id), {
                    done: `The endpoint ${w.description ?? w.url} is deleted.`,
                    failed: 'Could not delete the endpoint',
                  })
                }
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
