import type { ReactNode, Ref } from 'react';
import { describeError } from '../api';
import type { Segment } from '../lib/runs';

/**
 * What went wrong, in words; the error code and the request id (for whoever reads the server's logs)
 * are behind a "Details" toggle.
 */
export function ErrorNote({ error, title }: { error: unknown; title?: string | undefined }) {
  const e = describeError(error);
  return (
    <div className="error" role="alert">
      <strong>{title ?? 'Something went wrong'}:</strong> {e.message}
      {e.code || e.requestId ? (
        <Details>
          {e.code ? (
            <>
              code <code>{e.code}</code>
            </>
          ) : null}
          {e.code && e.requestId ? ' · ' : null}
          {e.requestId ? (
            <>
              request <code>{e.requestId}</code>
            </>
          ) : null}
        </Details>
      ) : null}
    </div>
  );
}

/**
 * Internal facts (scores, error codes, request ids) that people rarely need, folded away. `of` names
 * what they are about, for screen readers, where a list has one toggle per item.
 */
export function Details({ of, children }: { of?: string; children: ReactNode }) {
  return (
    <details className="details small">
      <summary>Details{of ? <span className="sr-only"> of {of}</span> : null}</summary>
      <div className="muted">{children}</div>
    </details>
  );
}

/** Text for screen readers only: the rest of a button's name, which sighted users read from its row. */
export const Hidden = ({ children }: { children: ReactNode }) => <span className="sr-only">{children}</span>;

export function ProgressBar({
  value,
  label,
  tone = 'busy',
  valueText,
}: {
  value: number;
  label: string;
  /** The colour of what is filled: busy (blue) while work goes on, ok, warn, bad for outcomes. */
  tone?: string;
  valueText?: string;
}) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div
      className="bar"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
      aria-valuetext={valueText}
    >
      <div className={`bar-fill tone-${tone}`} style={{ width: `${pct}%` }} />
    </div>
  );
}

/**
 * A run's documents as one bar of coloured parts: ready, needing OCR, failed, in progress, cancelled.
 * Queued documents are the empty track. The value read out is the share processed, never the share
 * merely finished: a cancelled run is not "100 %".
 */
export function RunBar({
  segments,
  processed,
  label,
  valueText,
}: {
  segments: Segment[];
  processed: number;
  label: string;
  valueText: string;
}) {
  return (
    <div
      className="bar stacked"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(processed * 100)}
      aria-valuetext={valueText}
      data-testid="run-bar"
    >
      {segments
        .filter((s) => s.state !== 'queued')
        .map((s) => (
          <div
            key={s.state}
            className={`bar-part tone-${s.tone}`}
            data-state={s.state}
            style={{ width: `${s.share * 100}%` }}
          />
        ))}
    </div>
  );
}

const TONE: Record<string, string> = {
  ready: 'ok',
  completed: 'ok',
  processing: 'busy',
  // Evaluations.
  running: 'busy',
  queued: 'wait',
  paused: 'wait',
  needs_ocr: 'warn',
  failed: 'bad',
  cancelled: 'cancelled',
  deleted: 'muted',
  // Webhook deliveries.
  succeeded: 'ok',
  pending: 'wait',
};

export function Status({ value }: { value: string }) {
  return <span className={`status status-${TONE[value] ?? 'muted'}`}>{value.replace('_', ' ')}</span>;
}

/**
 * A box that scrolls inside the page (a wide table, a long text, a PDF's pages): a named region that
 * the keyboard reaches, so that it can be scrolled without a mouse.
 */
export function ScrollRegion({
  label,
  className,
  children,
  ref,
  ...rest
}: {
  label: string;
  className: string;
  children: ReactNode;
  ref?: Ref<HTMLElement>;
  'data-testid'?: string;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section ref={ref} className={className} aria-label={label} tabIndex={0} {...rest}>
      {children}
    </section>
  );
}

/** A table that scrolls sideways inside its own box on a narrow screen, never the page. */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <ScrollRegion label={label} className="table-scroll">
      {children}
    </ScrollRegion>
  );
}

export function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="muted">–</span>;
  const d = new Date(iso);
  return (
    <time dateTime={iso}>{d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</time>
  );
}

export function Loading() {
  return (
    <p className="muted" aria-busy="true">
      Loading…
    </p>
  );
}
