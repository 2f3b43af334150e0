import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/**
 * Random bytes drawn a few thousand at a time: a draw per id was a fiftieth of bulk ingestion's main
 * thread, and ids need unpredictable bits, not a fresh call for each.
 */
const pool = { bytes: new Uint8Array(0), at: 0 };
function randomPart(n: number): Uint8Array {
  if (pool.at + n > pool.bytes.length) {
    pool.bytes = randomFillSync(new Uint8Array(4096));
    pool.at = 0;
  }
  pool.at += n;
  return pool.bytes.slice(pool.at - n, pool.at);
}

/** The last id's timestamp and random part: ids made in one millisecond count up from it. */
let last: { ms: number; random: Uint8Array } = { ms: -1, random: new Uint8Array(10) };

/**
 * Prefixed, time-sortable identifiers (`ws_…`, `run_…`, `doc_…`): a 48-bit millisecond timestamp then
 * 80 random bits, so ids sort by creation and say what they name in logs and support tickets. Ids made
 * by one process within one millisecond take the previous one's random part plus one, so that they
 * sort in the order they were made too (an upload's small files are staged many to a millisecond, and
 * its documents are listed in the order they were sent).
 */
export function newId(prefix: string): string {
  const bytes = new Uint8Array(16);
  const now = Date.now();
  for (let i = 5; i >= 0; i--) bytes[5 - i] = Math.floor(now / 2 ** (8 * i)) & 0xff;
  if (now === last.ms) {
    const random = last.random.slice();
    for (let i = random.length - 1; i >= 0; i--) {
      random[i] = (random[i]! + 1) & 0xff;
      if (random[i] !== 0) break;
    }
    last = { ms: now, random };
  } else {
    last = { ms: now, random: randomPart(10) };
  }
  bytes.set(last.random, 6);
  return `${prefix}_${base32(bytes)}`;
}

/** What any id of this service looks like (ids from elsewhere, e.g. in filters, are checked against it). */
export const ID_SHAPE = /^[A-Za-z0-9_:-]+$/;

export function randomToken(bytes: number): string {
  return base32(randomBytes(bytes));
}
