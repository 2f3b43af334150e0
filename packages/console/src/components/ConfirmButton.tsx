import { useEffect, useRef, useState } from 'react';

/**
 * A button that asks once more before it acts: the first click arms it, the second confirms, "Keep"
 * backs out. `target` names what it acts on for screen readers (sighted users see it in the row), so
 * that a list of "Delete" buttons says which is which. Focus follows: to the confirming button when
 * armed, back to the first button when kept.
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
  onConfirm: () => void | Promise<void>;
  disabled?: boolean;
}) {
  const [armed, setArmed] = useState(false);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const confirm = useRef<HTMLButtonElement>(null);
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    (armed ? confirm : first).current?.focus();
  }, [armed]);
  const arm = (on: boolean) => {
    moved.current = true;
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
      <button
        ref={confirm}
        type="button"
        className="danger"
        aria-label={named(confirmLabel)}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            arm(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="link" aria-label={named(keepLabel)} onClick={() => arm(false)}>
        {keepLabel}
      </button>
    </span>
  );
}
