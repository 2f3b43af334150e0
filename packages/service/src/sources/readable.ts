import { detectFormat } from '../parsing/detect.js';
import { checkUpload, type FileSample } from '../parsing/upload-check.js';

/**
 * Whether a worker can read an item, from its first and last bytes, as an upload is checked
 * (parsing/upload-check.ts: empty, an archive, binary content of no known format are refused), and
 * images where no worker can read their text. Undefined when it can; else the reason, in words.
 */
export function unreadableReason(
  sample: FileSample,
  name: string,
  declaredMediaType: string | null,
  options: { imagesReadable: boolean },
): string | undefined {
  const check = checkUpload(sample, name, declaredMediaType);
  if (!check.ok) return check.reason;
  if (!options.imagesReadable && detectFormat(sample.head, name, declaredMediaType).format === 'image')
    return 'an image: reading its text needs a worker with WORKER_PROFILE=full (OCR)';
  return undefined;
}

/** The reason for an item over the size limit. */
export const tooLarge = (max: number) => `larger than the limit of ${max} bytes`;

/**
 * Names no worker reads whatever their bytes, for sources whose listing reads no bytes (buckets):
 * archives, compressed files, programs, media, fonts, databases.
 */
const UNREADABLE_EXTENSIONS = new Set(
  (
    'gz tgz zip tar 7z rar bz2 xz zst lz4 exe dll so dylib bin iso dmg img msi deb rpm apk jar class pyc o a ' +
    'mp3 mp4 m4a m4v mov avi mkv webm wav flac ogg opus woff woff2 ttf otf eot db sqlite parquet'
  ).split(' '),
);

/** Why an item is skipped from its name alone; undefined when only its bytes could tell. */
export function unreadableByName(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  const ext = dot >= 0 ? name.slice(dot + 1).toLowerCase() : '';
  return UNREADABLE_EXTENSIONS.has(ext) ? `a .${ext} file, a kind no worker reads` : undefined;
}
