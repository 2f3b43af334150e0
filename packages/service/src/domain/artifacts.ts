/** Where a document's artifacts live in object storage. */
export const artifactKeys = {
  original: (documentId: string) => `raw/${documentId}`,
  text: (documentId: string) => `derived/${documentId}/text.md`,
  all: (documentId: string) => [`raw/${documentId}`, `derived/${documentId}/text.md`],
};
