import { useEffect, useRef, useState } from 'react';

/**
 * A button that asks once more before it acts: the first click arms it, the second confirms, "Keep"
 * backs out. `target` names what it acts on for screen readers (sighted users see it in the row), so
 * that a list of "Delete" buttons says which is which. Focus follows: to the confirming button when
 * armed, back to the first button when kept. After a confirmation the screen's note (useAction) says
 * what happened and takes the focus; the first button takes it back only if nothing else did.
 */
export function ConfirmButton({
  label,
  confirmLabel,
  keepLabel = 'Keep',
  target,
  onConfirm,
  disabled,
}: {
  label: string;
  confirmLabel: string;
  keepLabel?: string;
  target?: string;
  onConfirm: () => Promise<unknown>;
  disabled?: boolean;
}) {
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  const kept = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    if (armed) confirm.current?.focus();
    else if (kept.current || document.activeElement === document.body) first.current?.focus();
  }, [armed]);
  const arm = (on: boolean, keep = false) => {
    moved.current = true;
    kept.current = keep;
    setArmed(on);
  };
  // The visible words first, then what they act on: "Delete: handbook.pdf".
  const named = (words: string) => (target ? `${words}: ${target}` : undefined);
  if (!armed) {
    return (
      <button
        ref={first}
        type="button"
        className="danger-outline"
        aria-label={named(label)}
        disabled={disabled}
        onClick={() => arm(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span className="confirm">
      {/* aria-disabled, not disabled, while it works: a disabled button would drop the focus. */}
      <button
        ref={confirm}
        type="button"
        className="danger"
        aria-label={named(confirmLabel)}
        aria-disabled={busy}
        onClick={async () => {
          if (busy) return;
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            arm(false);
          }
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') arm(false, true);
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="link" aria-label={named(keepLabel)} onClick={() => arm(false, true)}>
        {keepLabel}
      </button>
    </span>
  );
}
