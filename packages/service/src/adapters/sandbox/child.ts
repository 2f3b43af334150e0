/**
 * The parser process (bundled as dist/parser.js). It runs inside the sandbox and answers requests
 * one at a time: a JSON request per line on standard input, for each the file it names parsed and one
 * JSON answer per line on standard output; it exits when its input ends. It trusts nothing it reads
 * and has nothing worth stealing: no network, no credentials, a read-only system.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { DetectedLanguage } from '../../domain/ports.js';
import { DocumentFailure } from '../../errors.js';
import { FULL_PROFILE_TOOLS, toolVersion } from '../../parsing/formats/tools.js';
import { parseBytes } from '../../parsing/parse.js';
import { detectionSample } from '../../text/detection-sample.js';
import { EldDetector } from '../language/eld.js';
import {
  type ParseGroupRequest,
  type ParseGroupResponse,
  type ParseLimits,
  type ParseRequest,
  type ParseResponse,
  SANDBOX_FAILURES,
} from './protocol.js';

/** One line: JSON escapes every newline inside strings. */
function answer(response: ParseResponse | ParseGroupResponse): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${JSON.stringify(response)}\n`, () => resolve()));
}

/** The next document starts with an empty temporary folder (tools such as LibreOffice write there). */
async function clearTmp(): Promise<void> {
  const tmp = os.tmpdir();
  for (const entry of await readdir(tmp).catch(() => [])) {
    await rm(path.join(tmp, entry), { recursive: true, force: true }).catch(() => {});
  }
}

async function parseOne(
  read: () => Promise<Buffer>,
  filename: string,
  declaredMediaType: string | null,
  limits: ParseLimits,
): Promise<ParseResponse> {
  try {
    const document = await parseBytes(await read(), filename, declaredMediaType, {
      profile: limits.profile,
      maxUnpackedBytes: limits.maxUnpackedBytes,
      maxOutputBytes: limits.maxOutputBytes,
    });
    if (Buffer.byteLength(document.text, 'utf8') > limits.maxOutputBytes) {
      throw new DocumentFailure(
        SANDBOX_FAILURES.output,
        `The extracted text is larger than the output limit of ${Math.round(limits.maxOutputBytes / 1048576)} MiB.`,
      );
    }
    return { ok: true, document };
  } catch (err) {
    if (err instanceof DocumentFailure) return { ok: false, code: err.code, message: err.message };
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      code: 'corrupt_document',
      message: `The file could not be parsed: ${message.slice(0, 500)}`,
    };
  }
}

async function parseGroup(request: ParseGroupRequest): Promise<ParseGroupResponse> {
  const started = performance.now();
  const results: (ParseResponse | null)[] = [];
  for (const doc of request.group) {
    // Past the budget the rest wait for requests of their own: a slow file must not spend the others' time.
    if (results.length > 0 && performance.now() - started > request.budgetMs) {
      results.push(null);
      continue;
    }
    await clearTmp();
    const result = await parseOne(
      async () => Buffer.from(doc.bytes, 'base64'),
      doc.filename,
      doc.declaredMediaType,
      request,
    );
    if (request.detectLanguage && result.ok)
      result.document.language = await languageOf(result.document.text);
    results.push(result);
  }
  return { results };
}

/**
 * A parsed document's language, told here on the core the parser has rather than on the worker's
 * thread: detection was about a tenth of that thread's time in bulk ingestion of small documents.
 */
let detector: EldDetector | undefined;
const languageDetector = () => {
  detector ??= new EldDetector();
  return detector;
};
async function languageOf(text: string): Promise<DetectedLanguage | null> {
  const found = await languageDetector().detect(detectionSample(text));
  return found ? { language: found.language, reliable: found.reliable } : null;
}

async function handle(
  request: ParseRequest | ParseGroupRequest,
): Promise<ParseResponse | ParseGroupResponse> {
  if ('group' in request) return parseGroup(request);
  await clearTmp();
  return parseOne(() => readFile(request.inputPath), request.filename, request.declaredMediaType, request);
}

// Standard output carries the answers and nothing else: whatever a library logs goes to standard error.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

async function main(): Promise<void> {
  if (process.argv.includes('--probe')) {
    process.stdout.write('ok', () => process.exit(0));
    return;
  }
  if (process.argv.includes('--probe-tools')) {
    const report: Record<string, string> = {};
    for (const tool of FULL_PROFILE_TOOLS) report[tool.program] = await toolVersion(tool);
    process.stdout.write(JSON.stringify(report), () => process.exit(0));
    return;
  }
  // A spare for a group of small documents (parser.ts): their languages will be asked for.
  if (process.argv.includes('--languages')) void languageDetector().detect('ready');
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (!line.trim()) continue;
    await answer(await handle(JSON.parse(line) as ParseRequest | ParseGroupRequest));
  }
  process.exit(0);
}

await main();
