/**
 * The processing pipeline: a batch of claimed documents through its stages, each in a file of its
 * own (docs/architecture.md, "The processing pipeline").
 */
export type { PipelineDeps } from './batch.js';
export { processDocuments, processingHandler } from './loop.js';
export { type Schedule, TUNED_SCHEDULE } from './schedule.js';
