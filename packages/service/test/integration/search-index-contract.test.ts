import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LanceSearchIndex } from '../../src/adapters/index/lancedb.js';
import { searchIndexContract } from '../support/search-index-contract.js';

// LanceDB in a local folder, under the suite its in-memory fake passes too (test/unit/search-index.test.ts).
searchIndexContract('LanceDB', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'index-contract-'));
  const index = new LanceSearchIndex(dir);
  return {
    index,
    async close() {
      await index.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
