import { randomBytes } from 'node:crypto';

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
 * Prefixed, time-sortable identifiers (`ws_…`, `run_…`, `doc_…`): a 48-bit millisecond timestamp then
 * 80 random bits, so ids sort by creation and say what they name in logs and support tickets.
 */
export function newId(prefix: string): string {
  const bytes = new Uint8Array(16);
  const now = Date.now();
  for (let i = 5; i >= 0; i--) bytes[5 - i] = Math.floor(now / 2 ** (8 * i)) & 0xff;
  bytes.set(randomBytes(10), 6);
  return `${prefix}_${base32(bytes)}`;
}

/** What any id of this service looks like (ids from elsewhere, e.g. in filters, are checked against it). */
export const ID_SHAPE = /^[A-Za-z0-9_:-]+$/;

export function randomToken(bytes: number): string {
  return base32(randomBytes(bytes));
}
