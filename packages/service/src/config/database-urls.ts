/** The job engine lives in its own database of the same instance: `<service db>_workflow` by default. */
export function deriveWorkflowUrl(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const db = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  u.pathname = `/${encodeURIComponent(`${db}_workflow`)}`;
  return u.toString();
}
