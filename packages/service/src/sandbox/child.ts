/**
 * The parser process (bundled as dist/parser.js). It runs inside the sandbox, reads one request on
 * standard input, parses the file it names and writes one JSON answer on standard output. It trusts
 * nothing it reads and has nothing worth stealing: no network, no credentials, a read-only system.
 */
import { readFile } from 'node:fs/promises';
import { DocumentFailure } from '../errors.js';
import { FULL_PROFILE_TOOLS, toolVersion } from '../parsing/formats/tools.js';
import { parseBytes } from '../parsing/parse.js';
import { type ParseRequest, type ParseResponse, SANDBOX_FAILURES } from './protocol.js';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function answer(response: ParseResponse): void {
  process.stdout.write(JSON.stringify(response), () => process.exit(0));
}

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
  const request = JSON.parse(await readStdin()) as ParseRequest;
  try {
    const buf = await readFile(request.inputPath);
    const document = await parseBytes(buf, request.filename, request.declaredMediaType, {
      profile: request.profile,
      maxUnpackedBytes: request.maxUnpackedBytes,
      maxOutputBytes: request.maxOutputBytes,
    });
    if (Buffer.byteLength(document.text, 'utf8') > request.maxOutputBytes) {
      throw new DocumentFailure(
        SANDBOX_FAILURES.output,
        `The extracted text is larger than the output limit of ${Math.round(request.maxOutputBytes / 1048576)} MiB.`,
      );
    }
    answer({ ok: true, document });
  } catch (err) {
    if (err instanceof DocumentFailure) {
      answer({ ok: false, code: err.code, message: err.message });
    } else {
      const message = err instanceof Error ? err.message : String(err);
      answer({
        ok: false,
        code: 'corrupt_document',
        message: `The file could not be parsed: ${message.slice(0, 500)}`,
      });
    }
  }
}

await main();
