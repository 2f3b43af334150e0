/**
 * Long text documents made of real prose: SciFact abstracts and SQuAD paragraphs in a seeded order,
 * about `chunksPerDocument` chunks each, until the corpus holds `totalChunks` chunks as the service's
 * own chunker counts them. The passages repeat across documents (the data sets hold about 9 million
 * characters, 100,000 chunks need ten times that), but each document strings them together in its
 * own order, so chunk boundaries and neighbours differ.
 */
import { chunkText } from '../../packages/service/src/processing/chunker.js';
import { dataDir, loadSciFact, loadSquad, seededRandom } from '../lib/data.js';
import type { UploadFile } from '../lib/driver.js';

export interface LoadCorpus {
  files: UploadFile[];
  chunks: number;
  characters: number;
}

/** Paragraphs to draw from, and the questions and claims to search with. */
export function loadTexts() {
  const dir = dataDir();
  const scifact = loadSciFact(dir);
  const squad = loadSquad(dir);
  return {
    paragraphs: [
      ...scifact.corpus.map((d) => `${d.title}. ${d.text}`),
      ...squad.paragraphs.map((p) => p.context),
    ],
    queries: [...scifact.queries.map((q) => q.text), ...squad.questions.map((q) => q.question)],
  };
}

export function buildCorpus(paragraphs: readonly string[], totalChunks: number, chunksPerDocument: number) {
  const rnd = seededRandom(42);
  // Chunks overlap, so a chunk adds about its target size less the overlap to the text (chunker defaults).
  const charsPerDocument = chunksPerDocument * 1200;
  const files: UploadFile[] = [];
  let chunks = 0;
  let characters = 0;
  while (chunks < totalChunks) {
    const i = files.length;
    const parts: string[] = [];
    let length = 0;
    const want = Math.min(charsPerDocument, ((totalChunks - chunks) / chunksPerDocument) * charsPerDocument);
    while (length < want) {
      const p = paragraphs[Math.floor(rnd() * paragraphs.length)]!;
      parts.push(p);
      length += p.length + 2;
    }
    const content = `${parts.join('\n\n')}\n`;
    chunks += chunkText(content, `doc_${i}`).length;
    characters += content.length;
    files.push({ name: `load-${String(i).padStart(5, '0')}.txt`, content, type: 'text/plain' });
  }
  return { files, chunks, characters } satisfies LoadCorpus;
}

/** A seeded endless cycle through the queries, the same sequence for the service and the reference. */
export function queryCycle(queries: readonly string[], seed = 5) {
  const rnd = seededRandom(seed);
  const order = queries.map((q) => ({ q, k: rnd() })).sort((a, b) => a.k - b.k);
  let i = 0;
  return () => order[i++ % order.length]!.q;
}
