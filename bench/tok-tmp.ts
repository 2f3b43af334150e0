import { createRequire } from 'node:module';
import { ENGLISH } from '../packages/service/src/text/language.js';

const require = createRequire(import.meta.url);
const native = require('/work/wt-lang/node_modules/@lancedb/lancedb/dist/native.js');
for (const t of process.argv.slice(2)) {
  console.log(
    'tantivy',
    native
      .tokenize(t, 'simple', 'English', 40, true, true, true, null, true, null, null, null)
      .map((x: any) => x.text)
      .join(' '),
  );
  console.log('ours   ', ENGLISH.indexTerms(t).join(' '));
}
