/**
 * Decodes text in the encodings people actually upload: UTF-8 (with or without BOM), UTF-16 with a
 * BOM, and Latin-1/Windows-1252 when the bytes are not valid UTF-8.
 */
export function decodeText(buf: Buffer): { text: string; encoding: string } {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(buf.subarray(3)), encoding: 'utf-8' };
  }
  if (buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe) {
    return { text: new TextDecoder('utf-16le').decode(buf.subarray(2)), encoding: 'utf-16le' };
  }
  if (buf.length >= 2 && buf[0] === 0xfe && buf[1] === 0xff) {
    return { text: new TextDecoder('utf-16be').decode(buf.subarray(2)), encoding: 'utf-16be' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(buf), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(buf), encoding: 'windows-1252' };
  }
}

/** True when decoded text looks like a binary file that happened to decode (NULs, many control chars). */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8192);
  if (sample.length === 0) return false;
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0) return true;
    if ((c < 9 || (c > 13 && c < 32) || c === 0xfffd) && c !== 27) control++;
  }
  return control / sample.length > 0.05;
}
