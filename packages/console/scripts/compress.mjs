// Writes gzip and brotli copies beside the built assets, so the server sends them compressed
// (@fastify/static's preCompressed) without compressing on every request.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const assets = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'assets');
const gz = promisify(gzip);
const br = promisify(brotliCompress);

for (const name of await readdir(assets)) {
  if (!/\.(m?js|css|svg)$/.test(name)) continue;
  const file = path.join(assets, name);
  const data = await readFile(file);
  await writeFile(`${file}.gz`, await gz(data, { level: 9 }));
  // The best brotli level costs seconds on pdf.js's megabyte worker for 10% less; that file is fetched
  // only when a PDF is opened, so it gets a faster level and `npm start` stays quick.
  const quality = data.length > 512 * 1024 ? 9 : 11;
  await writeFile(
    `${file}.br`,
    await br(data, {
      params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
  );
}
