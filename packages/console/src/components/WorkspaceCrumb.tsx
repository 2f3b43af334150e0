import { sdk } from '../api';
import { useLoad } from '../lib/hooks';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

/** The breadcrumb back to a workspace, by its name (the id until the name has come). */
export function WorkspaceCrumb({ id }: { id: string }) {
  const { data } = useLoad((signal) => sdk.getWorkspace(id, { signal }), [id]);
  return (
    <p className="crumbs">
      <Link to="/workspaces">Workspaces</Link> /{' '}
      <Link to={`/workspaces/${id}`}>{data ? workspaceLabel(data) : id}</Link> /
    </p>
  );
}
