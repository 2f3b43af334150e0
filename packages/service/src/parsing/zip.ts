import { crc32, inflateRawSync } from 'node:zlib';
import { DocumentFailure } from '../errors.js';

export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  method: number;
  localHeaderOffset: number;
}

/**
 * Lists a zip archive's entries from its central directory without inflating anything, so a
 * container can be identified (and its declared expansion checked) before any parser touches it.
 * Returns undefined when the bytes are not a readable zip.
 */
export function listZipEntries(buf: Buffer): ZipEntry[] | undefined {
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  const min = Math.max(0, buf.length - 65_557);
  let eocd = -1;
  for (let i = buf.length - 22; i >= min; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > buf.length || buf.readUInt32LE(offset) !== 0x02014b50) return undefined;
    const method = buf.readUInt16LE(offset + 10);
    const compressedSize = buf.readUInt32LE(offset + 20);
    const uncompressedSize = buf.readUInt32LE(offset + 24);
    const nameLength = buf.readUInt16LE(offset + 28);
    const extraLength = buf.readUInt16LE(offset + 30);
    const commentLength = buf.readUInt16LE(offset + 32);
    const localHeaderOffset = buf.readUInt32LE(offset + 42);
    const name = buf.toString('utf8', offset + 46, offset + 46 + nameLength);
    entries.push({ name, compressedSize, uncompressedSize, method, localHeaderOffset });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The bytes of a stored (uncompressed) entry, e.g. an ODF/EPUB `mimetype` file. */
export function readStoredEntry(buf: Buffer, entry: ZipEntry): Buffer | undefined {
  if (entry.method !== 0) return undefined;
  const o = entry.localHeaderOffset;
  if (o + 30 > buf.length || buf.readUInt32LE(o) !== 0x04034b50) return undefined;
  const start = o + 30 + buf.readUInt16LE(o + 26) + buf.readUInt16LE(o + 28);
  return buf.subarray(start, start + entry.compressedSize);
}

/** The parts of a zip-based document, inflated on demand within a budget shared by all of them. */
export interface ZipArchive {
  names: string[];
  has(name: string): boolean;
  /** The entry's bytes; undefined when absent. Throws DocumentFailure past the inflation budget. */
  read(name: string): Buffer | undefined;
  /** The entry as UTF-8 text, refused when it declares XML entities. */
  text(name: string): string | undefined;
}

function bomb(limit: number): DocumentFailure {
  return new DocumentFailure(
    'decompression_bomb',
    `The archive expands to more than the limit of ${Math.round(limit / 1048576)} MiB; it was not unpacked.`,
  );
}

/**
 * XML that declares entities (an internal DTD subset) is how "billion laughs" expansion works, and
 * office formats never need it, so such parts are refused outright rather than parsed carefully.
 */
export function assertNoXmlEntities(xml: string, partName: string): void {
  const prolog = xml.slice(0, Math.max(0, xml.search(/<[A-Za-z_]/)) || xml.length);
  if (/<!ENTITY/i.test(prolog) || /<!DOCTYPE[^>[]*\[/i.test(prolog)) {
    throw new DocumentFailure(
      'unsafe_xml',
      `The part "${partName.slice(0, 100)}" declares XML entities (a DTD), which documents never need; the file was refused to prevent entity-expansion attacks.`,
    );
  }
}

/**
 * Opens a zip without trusting it: sizes declared in the central directory are checked first, and
 * every entry is inflated with a hard cap on its output, so a small file that claims or hides an
 * enormous expansion fails with `decompression_bomb` before it can exhaust memory.
 */
export function openZip(buf: Buffer, maxUnpackedBytes: number): ZipArchive {
  const entries = listZipEntries(buf);
  if (!entries) throw new DocumentFailure('corrupt_document', 'The file is not a readable zip archive.');
  const declared = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (declared > maxUnpackedBytes) throw bomb(maxUnpackedBytes);
  const byName = new Map(entries.map((e) => [e.name, e]));
  let spent = 0;
  const read = (name: string): Buffer | undefined => {
    const entry = byName.get(name);
    if (!entry) return undefined;
    const o = entry.localHeaderOffset;
    if (o + 30 > buf.length || buf.readUInt32LE(o) !== 0x04034b50) {
      throw new DocumentFailure('corrupt_document', `The archive entry "${name.slice(0, 100)}" is damaged.`);
    }
    const start = o + 30 + buf.readUInt16LE(o + 26) + buf.readUInt16LE(o + 28);
    const raw = buf.subarray(start, start + entry.compressedSize);
    const budget = maxUnpackedBytes - spent;
    let data: Buffer;
    if (entry.method === 0) {
      data = raw;
    } else if (entry.method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(1, budget) });
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw bomb(maxUnpackedBytes);
        throw new DocumentFailure(
          'corrupt_document',
          `The archive entry "${name.slice(0, 100)}" is damaged.`,
        );
      }
    } else {
      throw new DocumentFailure(
        'corrupt_document',
        `The archive entry "${name.slice(0, 100)}" uses an unsupported compression method (${entry.method}).`,
      );
    }
    spent += data.length;
    if (spent > maxUnpackedBytes) throw bomb(maxUnpackedBytes);
    return data;
  };
  return {
    names: entries.map((e) => e.name),
    has: (name) => byName.has(name),
    read,
    text(name) {
      const data = read(name);
      if (!data) return undefined;
      const text = data.toString('utf8').replace(/^\uFEFF/, '');
      assertNoXmlEntities(text, name);
      return text;
    },
  };
}

/** Inflates and checks every XML part of an archive that another library is about to read whole. */
export function vetZip(buf: Buffer, maxUnpackedBytes: number): void {
  const zip = openZip(buf, maxUnpackedBytes);
  for (const name of zip.names) {
    if (/\.(xml|rels|xhtml|html|opf|ncx)$/i.test(name)) zip.text(name);
    else zip.read(name);
  }
}

/** A zip of stored (uncompressed) entries: how a parser hands a repaired document to a library. */
export function writeStoredZip(entries: { name: string; data: Buffer }[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, e.data);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(0x0800, 8);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(e.data.length, 20);
    record.writeUInt32LE(e.data.length, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += 30 + name.length + e.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}
