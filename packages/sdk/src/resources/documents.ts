import type { RequestOptions } from '../transport.js';
import type { Answer, Document, GrantsInput, ReprocessResult, Sent } from '../types.js';
import { type Api, DEFAULT_TIMEOUT_MS, id, LONG_TIMEOUT_MS } from './api.js';

const documentPath = (documentId: string) => `/v1/documents/${id(documentId, 'documentId')}`;

/** A workspace's documents, their text and original bytes, and processing or deleting one. */
export class Documents {
  constructor(private readonly api: Api) {}

  listDocuments(
    workspaceId: string,
    options: RequestOptions | undefined,
  ): Promise<Answer<'listDocuments', 200>> {
    return this.api.get(`/v1/workspaces/${id(workspaceId, 'workspaceId')}/documents`, options);
  }

  getDocument(documentId: string, options: RequestOptions | undefined): Promise<Document> {
    return this.api.get(documentPath(documentId), options);
  }

  getDocumentText(documentId: string, options: RequestOptions | undefined): Promise<string> {
    return this.api.send(
      {
        method: 'GET',
        path: `${documentPath(documentId)}/text`,
        accept: 'text/markdown',
        retryable: true,
        defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
        read: (response) => response.text(),
      },
      options,
    );
  }

  getDocumentContent(documentId: string, options: RequestOptions | undefined): Promise<Blob> {
    return this.api.send(
      {
        method: 'GET',
        path: `${documentPath(documentId)}/content`,
        accept: '*/*',
        retryable: true,
        defaultTimeoutMs: LONG_TIMEOUT_MS,
        read: (response) => response.blob(),
      },
      options,
    );
  }

  reprocessDocument(documentId: string, options: RequestOptions | undefined): Promise<ReprocessResult> {
    return this.api.post(`${documentPath(documentId)}/reprocess`, undefined, false, options);
  }

  setDocumentAccess(
    documentId: string,
    access: GrantsInput | null,
    options: RequestOptions | undefined,
  ): Promise<Document> {
    return this.api.patch(documentPath(documentId), { access } satisfies Sent<'updateDocument'>, options);
  }

  deleteDocument(documentId: string, options: RequestOptions | undefined): Promise<Document> {
    return this.api.delete(documentPath(documentId), options);
  }
}
