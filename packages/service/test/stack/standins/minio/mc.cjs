#!/usr/bin/env node
// `mc ready local`: exits 0 once the S3 API on :9000 answers.
const args = process.argv.slice(2);
if (args[0] !== 'ready' || args[1] !== 'local') {
  console.error('this stand-in supports only: mc ready local');
  process.exit(2);
}
fetch('http://127.0.0.1:9000/').then(
  () => process.exit(0),
  () => process.exit(1),
);
