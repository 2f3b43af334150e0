import type { Document } from '@service/sdk';
import { type FormEvent, useState } from 'react';
import { sdk } from '../api';
import { describeDocumentAccess } from '../lib/access';
import { useAction } from '../lib/hooks';
import {
  DocumentAccessChoice,
  type DocumentChoice,
  documentAccessOf,
  documentChoiceOf,
  useDirectory,
} from './Access';
import { ActionNote } from './ActionNote';

/**
 * Who may read a document: its workspace's readers, or only some of them. Those who may edit the
 * workspace (PATCH /v1/documents/{id} asks no more) change it here; it applies on the next request.
 */
export function DocumentSharing({
  doc,
  editable,
  onChanged,
}: {
  doc: Document;
  /** Whether the person may edit its workspace. */
  editable: boolean;
  onChanged: () => void;
}) {
  const { dir } = useDirectory();
  const [choice, setChoice] = useState<DocumentChoice>(() => documentChoiceOf(doc.access));
  const [open, setOpen] = useState(false);
  const action = useAction(onChanged);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (action.busy) return;
    const saved = await action.run(() => sdk.setDocumentAccess(doc.id, documentAccessOf(choice)), {
      done: choice.restricted
        ? 'Saved: only those chosen among the workspace’s readers may read it now.'
        : 'Saved: everyone who may read the workspace may read it now.',
      failed: 'Its access was not changed',
    });
    if (saved) setOpen(false);
  };

  return (
    <section aria-labelledby="doc-access-title" data-testid="document-access">
      <h2 id="doc-access-title">Who may read it</h2>
      <p data-testid="document-access-summary">{describeDocumentAccess(doc.access, dir)}</p>
      {editable && !open ? (
        <button
          type="button"
          onClick={() => {
            setChoice(documentChoiceOf(doc.access));
            setOpen(true);
          }}
        >
          Change who may read it
        </button>
      ) : null}
      {editable && open ? (
        <form className="key-form" onSubmit={save} aria-label="Who may read it">
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
            <button type="button" className="link" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      <ActionNote action={action} />
    </section>
  );
}
