import { sdk } from '../api';
import { ErrorNote, Loading, TableScroll, When } from '../components/common';
import { Uploader } from '../components/Uploader';
import { useLoad, useTitle } from '../lib/hooks';
import { workspaceLabel } from '../lib/workspaces';
import { Link, navigate } from '../router';

export function WorkspacesScreen() {
  const { data, error } = useLoad((signal) => sdk.listWorkspaces({ signal }), []);
  useTitle('Workspaces');
  return (
    <section>
      <h1>Workspaces</h1>
      <h2>New workspace</h2>
      <p className="muted">Name it and upload documents to create a workspace; processing starts at once.</p>
      <Uploader onUploaded={(r) => navigate(`/runs/${r.run.id}`)} />
      <h2>Your workspaces</h2>
      {error ? <ErrorNote error={error} /> : null}
      {!data && !error ? <Loading /> : null}
      {data && data.workspaces.length === 0 ? <p className="muted">None yet.</p> : null}
      {data && data.workspaces.length > 0 ? (
        <TableScroll label="Your workspaces">
          <table data-testid="workspaces">
            <thead>
              <tr>
                <th>Workspace</th>
                <th>Documents</th>
                <th>Ready</th>
                <th>Processing</th>
                <th>Failed</th>
                <th>Created</th>
              </tr>
            </thead>
            <tbody>
              {data.workspaces.map((w) => (
                <tr key={w.id}>
                  <td>
                    <Link to={`/workspaces/${w.id}`}>{workspaceLabel(w)}</Link>
                  </td>
                  <td>{w.counts.total}</td>
                  <td>{w.counts.ready}</td>
                  <td>{w.counts.queued + w.counts.processing}</td>
                  <td>{w.counts.failed}</td>
                  <td>
                    <When iso={w.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </section>
  );
}
