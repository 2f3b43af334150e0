import type { Availability } from '@service/sdk';
import { Link } from '../router';

/**
 * What search and chat say where there is nothing to search: a workspace without documents yet (how
 * to add some), or one whose documents are not searchable yet (still processing, or none usable).
 * Nothing when some documents are searchable.
 */
export function NothingToSearch({
  id,
  availability,
}: {
  id: string;
  availability: Availability | undefined;
}) {
  if (!availability || availability.searchable.length > 0) return null;
  const c = availability.counts;
  if (c.total - c.deleted === 0) {
    return (
      <p className="note" data-testid="nothing-to-search">
        This workspace has no documents yet. <Link to={`/workspaces/${id}`}>Add files</Link> or{' '}
        <Link to={`/workspaces/${id}/sources`}>a source</Link> to search them here.
      </p>
    );
  }
  const pending = availability.pending.length;
  return (
    <p className="note" data-testid="nothing-to-search">
      {pending > 0
        ? `None of its documents is searchable yet: ${pending === 1 ? '1 is' : `${pending} are`} still being processed.`
        : 'None of its documents is searchable: they failed, were cancelled, or need OCR.'}{' '}
      <Link to={`/workspaces/${id}`}>See its documents</Link>.
    </p>
  );
}
