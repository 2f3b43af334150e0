#!/usr/bin/env node
// Builds the bilingual dictionaries a question in one language is searched with in a workspace of
// another (decision 0028): from FreeDict's dictionaries in dictd format into one tab-separated file
// per pair, `<from>-<to>.tsv`, each line a headword and its translations.
//
//   node packages/service/scripts/dictionaries.mjs [dictd folder] [output folder]
//
// The dictd folder defaults to /usr/share/dictd, where Debian's packages put them
// (`apt-get install dict-freedict-deu-eng dict-freedict-fra-eng dict-freedict-spa-eng`; the same
// files are on freedict.org); the output folder to ./data/dictionaries, which the service reads
// (DICTIONARIES_DIR). FreeDict's dictionaries are GPL, so they are built where the service is
// installed, not shipped with it.
//
// What is kept: headwords of one word; translations of one to three words, their grammar tags
// (<n, masc>), subject labels ([comp.]), glosses in parentheses and numbering taken off; at most
// MAX_TRANSLATIONS per headword, in the order the dictionary gives its senses (its first is usually
// the common one).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

const PAIRS = [
  ['deu', 'de'],
  ['fra', 'fr'],
  ['spa', 'es'],
  ['ita', 'it'],
  ['por', 'pt'],
  ['nld', 'nl'],
];
const MAX_TRANSLATIONS = 8;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const from = process.argv[2] ?? '/usr/share/dictd';
const to = process.argv[3] ?? path.join(process.cwd(), 'data', 'dictionaries');

/** dictd's offsets and lengths: base 64, most significant digit first. */
function number(b64) {
  let n = 0;
  for (const c of b64) n = n * 64 + B64.indexOf(c);
  return n;
}

/** The translations one entry gives: the lines after its headword line, before notes and synonyms. */
export function translationsOf(entry) {
  const out = [];
  for (const line of entry.split('\n').slice(1)) {
    // Synonyms, "see:" lists and notes are in the source language; a sense's subject labels may
    // indent its line by one space (" [comp.] printer <n>"), notes by three or more.
    if (line.trim() === '' || /^\s{3}/.test(line) || /^\s*(Synonyms?|see|Note):/.test(line)) continue;
    const cleaned = line
      .replace(/^\d+\.\s*/, '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/\[[^\]]*\]/g, ' ')
      .replace(/\([^)]*\)/g, ' ')
      .replace(/\{[^}]*\}/g, ' ');
    for (const piece of cleaned.split(/[,;]/)) {
      const words = piece.trim().replace(/\s+/g, ' ');
      if (!words || !/^[\p{L}][\p{L}' -]*$/u.test(words)) continue;
      if (words.split(' ').length > 3) continue;
      out.push(words.toLowerCase());
    }
  }
  return out;
}

function build(iso, code) {
  const base = path.join(from, `freedict-${iso}-eng`);
  if (!existsSync(`${base}.index`)) return undefined;
  const dictFile = existsSync(`${base}.dict.dz`) ? `${base}.dict.dz` : `${base}.dict`;
  // A .dict.dz is dictzip: gzip with an index of its chunks, which gunzip reads whole.
  const raw = readFileSync(dictFile);
  const dict = dictFile.endsWith('.dz') ? gunzipSync(raw) : raw;
  const byWord = new Map();
  for (const line of readFileSync(`${base}.index`, 'utf8').split('\n')) {
    const [head, offset, length] = line.split('\t');
    if (!head || !length || head.startsWith('00-database') || head.startsWith('00database')) continue;
    const word = head.toLowerCase();
    if (!/^\p{L}[\p{L}\p{M}'-]*$/u.test(word)) continue;
    const entry = dict.subarray(number(offset), number(offset) + number(length)).toString('utf8');
    const list = byWord.get(word) ?? [];
    for (const t of translationsOf(entry))
      if (!list.includes(t) && list.length < MAX_TRANSLATIONS) list.push(t);
    if (list.length > 0) byWord.set(word, list);
  }
  const lines = [...byWord]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([w, t]) => [w, ...t].join('\t'));
  mkdirSync(to, { recursive: true });
  const file = path.join(to, `${code}-en.tsv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { file, headwords: lines.length };
}

let built = 0;
for (const [iso, code] of PAIRS) {
  const result = build(iso, code);
  if (!result) continue;
  built++;
  process.stdout.write(`${result.file}: ${result.headwords} headwords\n`);
}
if (built === 0) {
  process.stderr.write(
    `No FreeDict dictionary (freedict-<language>-eng.index) in ${from}: install dict-freedict-deu-eng (and the others you need) or name the folder that has them.\n`,
  );
  process.exit(1);
}
