/** Where a document's artifacts live in object storage. */
export const artifactKeys = {
  original: (documentId: string) => `raw/${documentId}`,
  text: (documentId: string) => `derived/${documentId}/text.md`,
  /** Where the text holds what (domain/text-map.ts); absent for texts stored before it existed. */
  textMap: (documentId: string) => `derived/${documentId}/text-map.json`,
  all: (documentId: string) => [
    `raw/${documentId}`,
    `derived/${documentId}/text.md`,
    `derived/${documentId}/text-map.json`,
  ],
};
