import { type ReactNode, useEffect, useRef, useState } from 'react';

/**
 * A secret shown this one time (a new API key, a webhook's signing secret), with a copy button; the
 * service keeps no way to show it again. `noun` names it in the buttons ("Copy key", "Copy secret").
 */
export function NewSecret({
  secret,
  noun,
  label,
  testId,
  children,
  onDone,
}: {
  secret: string;
  noun: string;
  /** The field's accessible name. */
  label: string;
  testId: string;
  /** What it is and where it goes, shown above it. */
  children: ReactNode;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState<boolean>();
  // Shown once: the keyboard goes to it (the field selects the secret for copying).
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="secret" role="status">
      <p>{children}</p>
      <div className="row">
        <input
          ref={field}
          readOnly
          value={secret}
          aria-label={label}
          data-testid={testId}
          onFocus={(e) => e.target.select()}
        />
        <button type="button" onClick={copy}>
          {copied ? `${noun[0]!.toUpperCase()}${noun.slice(1)} copied` : `Copy ${noun}`}
        </button>
        <button type="button" className="link" onClick={onDone}>
          Done: hide the {noun}
        </button>
      </div>
      {copied === false ? (
        <p className="small bad-text">Copying failed: select the {noun} and copy it by hand.</p>
      ) : null}
    </div>
  );
}
