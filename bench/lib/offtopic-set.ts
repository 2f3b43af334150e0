import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './data.js';
import { htmlText, type Split } from './manual-set.js';
import { manualDir } from './manuals.js';

/**
 * The off-topic set (bench/languages/off-topic.json, issue 24): small workspaces of 3 to 30 technical
 * documents from Debian packages, questions of everyday life in six languages that none of them
 * answers, and questions each workspace does answer (to count false declines). The other off-topic
 * part, one manual's questions asked of another manual's workspace, is made from the manual sets.
 */
export interface OffTopicSet {
  workspaces: { id: string; files: { package: string; path: string }[] }[];
  everyday: { id: string; language: string; q: string; split: Split }[];
  answerable: {
    id: string;
    workspace: string;
    language: string;
    q: string;
    /** `<package>/<path in the package>` of the file that answers it. */
    file: string;
    answer: string;
    split: Split;
  }[];
}

export function loadOffTopicSet(): OffTopicSet {
  return JSON.parse(
    readFileSync(path.join(repoRoot, 'bench/languages/off-topic.json'), 'utf8'),
  ) as OffTopicSet;
}

export interface WorkspaceFile {
  /** `<package>/<path>`: unique across packages, and what the answerable questions name. */
  name: string;
  file: string;
  type: string;
}

/** The files of one small workspace, each package fetched once (bench/lib/manuals.ts). */
export async function offTopicFiles(set: OffTopicSet, workspaceId: string): Promise<WorkspaceFile[]> {
  const ws = set.workspaces.find((w) => w.id === workspaceId);
  if (!ws) throw new Error(`off-topic.json has no workspace ${workspaceId}`);
  const out: WorkspaceFile[] = [];
  for (const f of ws.files) {
    const pkg = await manualDir(f.package);
    out.push({
      name: `${f.package}/${f.path}`,
      file: path.join(pkg.dir, f.path),
      type: /\.x?html?$/.test(f.path) ? 'text/html' : /\.md$/.test(f.path) ? 'text/markdown' : 'text/plain',
    });
  }
  return out;
}

/** Checks every answerable question's pattern against its file's text; throws listing each that fails. */
export function verifyOffTopicAnswers(set: OffTopicSet, files: Map<string, WorkspaceFile>): void {
  const problems: string[] = [];
  for (const q of set.answerable) {
    const f = files.get(q.file);
    if (!f) {
      problems.push(`${q.id}: ${q.file} is not a file of the off-topic workspaces`);
      continue;
    }
    const raw = readFileSync(f.file, 'utf8');
    const text = f.type === 'text/html' ? htmlText(raw) : raw.replace(/\s+/g, ' ');
    if (!new RegExp(q.answer, 'i').test(text))
      problems.push(`${q.id}: /${q.answer}/i does not match ${q.file}`);
  }
  if (problems.length) throw new Error(`off-topic.json:\n  ${problems.join('\n  ')}`);
}
