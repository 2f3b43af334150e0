// Keeps source files small enough to read and change (docs/decisions/0011): a file over 400 lines
// must say why on one of its first lines ("Over 400 lines: …"). Parsers and benchmarks are exempt:
// a file format or a benchmark is one long story.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_LINES = 400;
const exempt = [/^bench\//, /^packages\/service\/src\/parsing\//];
const files = [
  ...new Set(
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|tsx|mts|mjs|js|cjs)$/.test(f) && !exempt.some((e) => e.test(f))),
  ),
];

const unexplained = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the work tree
  }
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES && !/Over 400 lines:/.test(text.split('\n').slice(0, 5).join('\n')))
    unexplained.push(`${file}: ${lines} lines`);
}
if (unexplained.length) {
  console.error(
    `Files over ${MAX_LINES} lines without a reason ("// Over 400 lines: …" at the top); split them or say why:\n  ${unexplained.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(`✔ ${files.length} source files: none over ${MAX_LINES} lines without a reason`);
