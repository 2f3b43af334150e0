import type { ReactNode } from 'react';
import { ErrorNote, Loading, TableScroll } from './common';

/** A column's heading; `hidden` ones (an actions column) are named for screen readers only. */
export type Column = string | { label: string; hidden?: boolean; className?: string };

/**
 * The list every screen shows the same way: its loading state, the error that stopped it, the words
 * for an empty list, or the rows in a table that scrolls in its own box. Every header cell has a name,
 * an actions column's too. `stack` lays the rows out as blocks on a narrow screen (each cell under
 * the next, named by its column) instead of scrolling sideways: for tables whose actions must stay
 * in reach.
 */
export function Listing<T, I>({
  state,
  items,
  empty,
  label,
  testId,
  columns,
  row,
  stack,
  children,
}: {
  state: { data: T | undefined; error: unknown };
  items: (data: T) => I[];
  empty: ReactNode;
  label: string;
  testId?: string;
  columns: Column[];
  row: (item: I, index: number) => ReactNode;
  stack?: boolean;
  /** Shown under the table (a pager, "older…"). */
  children?: ReactNode;
}) {
  const { data, error } = state;
  if (error && data === undefined) return <ErrorNote error={error} />;
  if (data === undefined) return <Loading />;
  const list = items(data);
  return (
    <>
      {error ? <ErrorNote error={error} title="Could not refresh the list" /> : null}
      {list.length === 0 ? (
        <p className="muted empty">{empty}</p>
      ) : (
        <TableScroll label={label}>
          <table data-testid={testId} className={stack ? 'stack' : undefined}>
            <thead>
              <tr>
                {columns.map((c) => {
                  const col = typeof c === 'string' ? { label: c } : c;
                  return (
                    <th key={col.label} className={col.className} scope="col">
                      {col.hidden ? <span className="sr-only">{col.label}</span> : col.label}
                    </th>
                  );
                })}
              </tr>
            </thead>
            <tbody>{list.map(row)}</tbody>
          </table>
        </TableScroll>
      )}
      {children}
    </>
  );
}
