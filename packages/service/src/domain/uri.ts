/**
 * A percent-encoded part of a URL (a path segment, a `filename*` value), decoded. Sites do send
 * sequences that are not UTF-8 (`%ff`, a Latin-1 name) or not percent-encoding at all (`100%`): those
 * are kept as sent, since a name that reads oddly is better than losing the document over it.
 */
export function decodeUriPart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
