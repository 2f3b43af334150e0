import type { Document } from '@service/sdk';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { sdk } from '../api';
import {
  type Directory,
  type DocumentChoice,
  describeDocumentAccess,
  documentAccessOf,
  documentChoiceOf,
} from '../lib/access';
import type { Action } from '../lib/hooks';
import { DocumentAccessChoice } from './Access';
import { Hidden } from './common';

/**
 * Who may read a document, as one of its facts (so that the page's text and PDF stay where they
 * were), with "Change" for those who may edit its workspace (PATCH /v1/documents/{id} asks no more).
 * When the form closes without a note to take the focus (Cancel, Escape), the button takes it back.
 */
export function AccessFact({
  doc,
  dir,
  editable,
  open,
  onOpen,
}: {
  doc: Document;
  dir: Directory;
  editable: boolean;
  open: boolean;
  onOpen: () => void;
}) {
  const button = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    if (wasOpen.current && !open && document.activeElement === document.body) button.current?.focus();
    wasOpen.current = open;
  }, [open]);
  return (
    <>
      <dt>Who may read it</dt>
      <dd>
        <span data-testid="document-access-summary">{describeDocumentAccess(doc.access, dir)}</span>
        {editable && !open ? (
          <>
            {' '}
            <button ref={button} type="button" className="link small" onClick={onOpen}>
              Change<Hidden> who may read it</Hidden>
            </button>
          </>
        ) : null}
      </dd>
    </>
  );
}

/** The change itself: everyone who reads the workspace, or only the groups and people ticked. It applies on the next request. */
export function AccessForm({
  doc,
  dir,
  action,
  onClose,
}: {
  doc: Document;
  dir: Directory;
  /** The screen's action: its note says what the change did. */
  action: Action;
  onClose: () => void;
}) {
  const [choice, setChoice] = useState<DocumentChoice>(() => documentChoiceOf(doc.access));
  // The person just asked to change it: the first choice is where they go next.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector<HTMLInputElement>('input:checked')?.focus(), []);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy) return;
    const saved = await action.run(() => sdk.setDocumentAccess(doc.id, documentAccessOf(choice)), {
      done: choice.restricted
        ? 'Saved: only those chosen among the workspace’s readers may read it now.'
        : 'Saved: everyone who may read the workspace may read it now.',
      failed: 'Its access was not changed',
    });
    if (saved) onClose();
  };
  return (
    <form
      ref={form}
      className="key-form"
      onSubmit={save}
      aria-label="Who may read it"
      data-testid="document-access"
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <DocumentAccessChoice
        legend="May read it"
        name="doc-access"
        dir={dir}
        value={choice}
        onChange={setChoice}
      />
      <div className="row">
        <button type="submit" className="primary" aria-disabled={action.busy}>
          Save access
        </button>
        <button type="button" className="link" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
