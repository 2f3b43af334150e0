import { useEffect, useRef } from 'react';
import type { Action } from '../lib/hooks';
import { ErrorNote } from './common';

/**
 * What the screen's last action did, or why it failed. It takes the focus when a new outcome appears:
 * the button that acted has often gone with what it acted on, and the keyboard continues from here.
 */
export function ActionNote({ action }: { action: Action }) {
  const box = useRef<HTMLDivElement>(null);
  const seq = action.outcome?.seq;
  useEffect(() => {
    if (seq !== undefined) box.current?.focus();
  }, [seq]);
  const o = action.outcome;
  if (!o) return null;
  return (
    <div ref={box} tabIndex={-1} className="action-note" data-testid="action-note">
      {o.error !== undefined ? (
        <ErrorNote error={o.error} title={o.title} />
      ) : (
        <p className="note ok" role="status">
          {o.done}
        </p>
      )}
    </div>
  );
}
