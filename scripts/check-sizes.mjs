// Keeps source files small enough to read and change (docs/decisions/0011): no source file passes 400
// lines unless scripts/size-exceptions.json lists it with a reason and a ceiling, and a listed file
// never passes its ceiling. The list is reviewed like code: an entry is added, or a ceiling raised,
// in a change someone reads; a comment in the file itself counts for nothing. An entry whose file is
// gone or back under 400 lines must be removed, so that the list never holds room nobody uses.
// test/unit/gates.test.ts plants each violation and expects this check to fail.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_LINES = 400;
const LIST = 'scripts/size-exceptions.json';

const { files: listed } = JSON.parse(readFileSync(LIST, 'utf8'));
const ceilings = new Map();
const problems = [];
for (const { path, ceiling, reason } of listed) {
  if (ceilings.has(path)) problems.push(`${path}: listed twice in ${LIST}`);
  if (!Number.isInteger(ceiling) || ceiling <= MAX_LINES)
    problems.push(`${path}: its ceiling in ${LIST} must be a whole number over ${MAX_LINES}`);
  if (typeof reason !== 'string' || reason.trim().length < 20)
    problems.push(`${path}: its entry in ${LIST} must say why it is one file`);
  ceilings.set(path, ceiling);
}

const files = [
  ...new Set(
    execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|tsx|mts|mjs|js|cjs)$/.test(f)),
  ),
];

const seen = new Set();
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the work tree
  }
  seen.add(file);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const ceiling = ceilings.get(file);
  if (ceiling === undefined) {
    if (lines > MAX_LINES)
      problems.push(`${file}: ${lines} lines, over ${MAX_LINES} and not in ${LIST}: split it`);
  } else if (lines > ceiling) {
    problems.push(`${file}: ${lines} lines, over its ceiling of ${ceiling} in ${LIST}: split it`);
  } else if (lines <= MAX_LINES) {
    problems.push(`${file}: ${lines} lines, no longer over ${MAX_LINES}: remove its entry from ${LIST}`);
  }
}
for (const path of ceilings.keys())
  if (!seen.has(path))
    problems.push(`${path}: listed in ${LIST} but not a source file here: remove its entry`);

if (problems.length) {
  console.error(
    `File sizes (at most ${MAX_LINES} lines a file, or the ceiling ${LIST} gives):\n  ${problems.join('\n  ')}`,
  );
  process.exit(1);
}
console.log(
  `✔ ${files.length} source files: none over ${MAX_LINES} lines but the ${ceilings.size} listed, each within its ceiling`,
);
