import type { Workspace } from '@service/sdk';
import { workspaceLabel } from '../lib/workspaces';
import { Link } from '../router';

/** The workspace's title (its name, once loaded) and its views. */
export function WorkspaceHeader({
  id,
  workspace,
  current,
}: {
  id: string;
  workspace: Workspace | undefined;
  current: 'documents' | 'search' | 'chat' | 'sources' | 'quality';
}) {
  const tabs = [
    ['documents', `/workspaces/${id}`, 'Documents'],
    ['search', `/workspaces/${id}/search`, 'Search'],
    ['chat', `/workspaces/${id}/chat`, 'Chat'],
    ['sources', `/workspaces/${id}/sources`, 'Sources'],
    ['quality', `/workspaces/${id}/quality`, 'Quality'],
  ] as const;
  return (
    <header className="ws-header">
      <p className="crumbs">
        <Link to="/workspaces">Workspaces</Link> /
      </p>
      <h1>{workspace ? workspaceLabel(workspace) : id}</h1>
      <nav className="tabs" aria-label="Workspace">
        {tabs.map(([key, to, label]) => (
          <Link
            key={key}
            to={to}
            className={key === current ? 'tab current' : 'tab'}
            aria-current={key === current ? 'page' : undefined}
          >
            {label}
          </Link>
        ))}
      </nav>
    </header>
  );
}
