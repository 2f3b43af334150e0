/**
 * The processing pipeline: a batch of claimed documents through its stages, each in a file of its
 * own (docs/architecture.md, "The pipeline's code"; decision 0020).
 */
export type { PipelineDeps } from './batch.js';
export { processDocuments, processingHandler } from './loop.js';
