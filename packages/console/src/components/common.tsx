import { describeError } from '../api';

export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  const e = describeError(error);
  return (
    <div className="error" role="alert">
      <strong>{title ?? 'Something went wrong'}:</strong> {e.message}
      {e.code ? <code className="muted"> {e.code}</code> : null}
      {e.requestId ? <span className="muted small"> (request {e.requestId})</span> : null}
    </div>
  );
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  const pct = Math.round(Math.max(0, Math.min(1, value)) * 100);
  return (
    <div
      className="bar"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={pct}
    >
      <div className="bar-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}

const TONE: Record<string, string> = {
  ready: 'ok',
  completed: 'ok',
  processing: 'busy',
  queued: 'wait',
  paused: 'wait',
  needs_ocr: 'warn',
  failed: 'bad',
  cancelled: 'muted',
  deleted: 'muted',
};

export function Status({ value }: { value: string }) {
  return <span className={`status status-${TONE[value] ?? 'muted'}`}>{value.replace('_', ' ')}</span>;
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
