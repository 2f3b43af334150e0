interface Named {
  filename: string;
  sourceItem?: string | null;
}

/** A source item's folders (an object key's or a path's, ending in the file name), or its URL. */
function itemParts(d: Named): { folders: string } | { url: string } | undefined {
  const item = d.sourceItem;
  if (!item || item === d.filename) return undefined;
  const slash = item.lastIndexOf('/');
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(item) && item.slice(slash + 1) === d.filename)
    return { folders: item.slice(0, slash + 1) };
  return { url: item };
}

/**
 * A document by its name, and for a document of a source by its path within the source (`sourceItem`):
 * a folder of manuals has many `index.md`, which only their folders tell apart. The folders are
 * muted, the file name is not; an item that is a URL follows the name.
 */
export function DocumentName(d: Named) {
  const parts = itemParts(d);
  if (!parts) return <>{d.filename}</>;
  if ('folders' in parts)
    return (
      <>
        <span className="path">{parts.folders}</span>
        {d.filename}
      </>
    );
  return (
    <>
      {d.filename} <span className="item">({parts.url})</span>
    </>
  );
}

/** The same as plain text, for titles and labels. */
export function documentLabel(d: Named): string {
  const parts = itemParts(d);
  if (!parts) return d.filename;
  return 'folders' in parts ? parts.folders + d.filename : `${d.filename} (${parts.url})`;
}
