import type { RunStatus } from '../../src/domain/types.js';
import { documentRecord, MemoryWorkStore } from '../support/fakes.js';
import { workStoreContract } from '../support/work-store-contract.js';

// The fake the pipeline's unit tests use, under the suite the PostgreSQL repository passes too
// (test/integration/work-store.test.ts).
workStoreContract('in memory', async () => {
  const work = new MemoryWorkStore();
  let n = 0;
  return {
    work,
    async seed(status: RunStatus, attempts: number[], where) {
      const runId = `run_${++n}`;
      work.addRun(runId, status);
      const documentIds = attempts.map((a, i) => {
        const id = `doc_${n}_${i}`;
        work.addDocument(documentRecord({ id, runId, attempts: a, sizeBytes: 1, ...where }));
        return id;
      });
      return { runId, documentIds };
    },
    async setRunStatus(runId, status) {
      work.runs.get(runId)!.status = status;
    },
    document: async (id) => work.document(id),
    runStatus: async (runId) => work.runs.get(runId)!.status,
    async expireLeases(seconds) {
      work.now += seconds * 1000 + 1;
    },
    async passTime(seconds) {
      work.now += seconds * 1000 + 1;
    },
  };
});
