// The name a document is stored under, whether it came in an upload, from a URL or from a source's
// items (the pipeline): one rule for all three, in the domain so that no feature reaches into another
// for it (.dependency-cruiser.cjs, `features-through-public-modules`).

/**
 * Keeps a file name readable and harmless: no directories, no control characters, no controls that
 * reorder its display (so "gpj.[RLO]exe.txt" cannot pose as "gpj.txt.exe"), at most 255 UTF-16 units,
 * cut between characters (the extension kept). The original bytes are never changed.
 */
export function sanitizeFilename(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(LONE_SURROGATE, '')
    .replace(/^[.\s]+/, '')
    .trim();
  if (name.length > 255) {
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? '';
    let stem = name.slice(0, 255 - ext.length);
    // Never half of a character that takes two UTF-16 units.
    if (/[\uD800-\uDBFF]$/.test(stem)) stem = stem.slice(0, -1);
    name = stem + ext;
  }
  return name || 'unnamed';
}

/** Half of a surrogate pair without the other half: not a character, and not storable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
