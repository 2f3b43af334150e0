import { MemorySearchIndex } from '../support/fake-index.js';
import { searchIndexContract } from '../support/search-index-contract.js';

// The fake the pipeline's unit tests use, under the suite LanceDB passes too
// (test/integration/search-index-contract.test.ts).
searchIndexContract('in memory', async () => ({ index: new MemorySearchIndex(), close: async () => {} }));
