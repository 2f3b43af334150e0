import type { StartOutcome, WorkStore } from '../../src/domain/stores.js';
import type { DocumentStage } from '../../src/domain/types.js';

/** Starts one document, as a batch starts a document it parses alone. */
export async function startDocument(
  work: Pick<WorkStore, 'startDocuments'>,
  documentId: string,
  workerId: string,
  stage: DocumentStage,
): Promise<StartOutcome | undefined> {
  return (await work.startDocuments([documentId], workerId, stage)).get(documentId);
}
