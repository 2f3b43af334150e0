import type { SearchIndex } from '../../domain/ports.js';
import type { ConditionalWriteCheck } from './conditional-writes.js';

type Writes =
  | 'replaceDocument'
  | 'replaceDocuments'
  | 'deleteDocument'
  | 'replaceVectors'
  | 'upsertVectors'
  | 'optimize';

/**
 * The search index, refusing every commit (writes, deletions of rows, optimisation) while its store is not known to
 * honour conditional writes: the write fails with the check's DependencyUnavailable, which the
 * pipeline treats as any storage outage (the documents go back to the queue). Reads pass through, and
 * so do drops of whole tables (a deleted workspace's), which remove files without a commit.
 */
export function guardIndexWrites<T extends SearchIndex>(index: T, check: ConditionalWriteCheck): T {
  if (check.skipped) return index;
  const guarded =
    (name: Writes) =>
    async (...args: unknown[]) => {
      await check.assertWritable();
      return (index[name] as (...a: unknown[]) => Promise<unknown>).apply(index, args);
    };
  const writes: Record<Writes, unknown> = {
    replaceDocument: guarded('replaceDocument'),
    replaceDocuments: guarded('replaceDocuments'),
    deleteDocument: guarded('deleteDocument'),
    replaceVectors: guarded('replaceVectors'),
    upsertVectors: guarded('upsertVectors'),
    optimize: guarded('optimize'),
  };
  return new Proxy(index, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in writes) return writes[prop as Writes];
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
