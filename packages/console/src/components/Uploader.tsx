import type { UploadResult } from '@service/sdk';
import { type DragEvent, useRef, useState } from 'react';
import { sdk, type UploadTask, uploadFiles } from '../api';
import { type DocumentChoice, documentAccessOf, documentChoiceOf } from '../lib/access';
import { checkFile, describeFormats } from '../lib/formats';
import { useLoad } from '../lib/hooks';
import { formatBytes } from '../lib/progress';
import { suggestedName, WORKSPACE_NAME_MAX } from '../lib/workspaces';
import { DocumentAccessChoice, useDirectory } from './Access';
import { ErrorNote, Hidden, ProgressBar } from './common';

/**
 * Drop files (or pick them) and upload them in one request, with a progress bar per file. Without a
 * workspace the upload creates one, under the name given (the first file's, unless changed); with
 * one, the files are appended to it. Each file is checked first: one the service cannot read is
 * refused here, with the reason and the formats the service says it reads (GET /v1/formats), rather
 * than sent to be refused by the service.
 */
export function Uploader({
  workspaceId,
  onUploaded,
}: {
  workspaceId?: string;
  onUploaded: (result: UploadResult) => void;
}) {
  const [files, setFiles] = useState<{ key: number; file: File }[]>([]);
  const nextKey = useRef(0);
  const [progress, setProgress] = useState<number[]>([]);
  const [dragging, setDragging] = useState(false);
  const [error, setError] = useState<unknown>();
  const [task, setTask] = useState<UploadTask>();
  const [refused, setRefused] = useState<{ name: string; reason: string }[]>([]);
  // Undefined until the person types one: the name follows the files chosen until then.
  const [typedName, setTypedName] = useState<string>();
  const input = useRef<HTMLInputElement>(null);
  const formats = useLoad((signal) => sdk.listFormats({ signal }), []);
  // Who may read the files: the workspace's readers unless narrowed, for every file of the upload.
  const [access, setAccess] = useState<DocumentChoice>(() => documentChoiceOf(null));
  const { dir } = useDirectory();
  const name = typedName ?? suggestedName(files.map((f) => f.file));

  const add = async (list: FileList | null) => {
    if (!list || task) return;
    setError(undefined);
    const chosen = Array.from(list);
    const checks = await Promise.all(chosen.map((file) => checkFile(file)));
    const added: { key: number; file: File }[] = [];
    const notAdded: { name: string; reason: string }[] = [];
    chosen.forEach((file, i) => {
      const check = checks[i]!;
      if (check.ok) added.push({ key: nextKey.current++, file });
      else notAdded.push({ name: file.name, reason: check.reason });
    });
    setRefused(notAdded);
    setFiles((prev) => [...prev, ...added]);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void add(e.dataTransfer.files);
  };

  const start = async () => {
    setError(undefined);
    setProgress(files.map(() => 0));
    const t = uploadFiles(
      files.map((f) => f.file),
      workspaceId ? { workspaceId } : { workspaceName: name.trim() || undefined },
      setProgress,
      documentAccessOf(access),
    );
    setTask(t);
    try {
      const result = await t.promise;
      setFiles([]);
      setProgress([]);
      setTypedName(undefined);
      setAccess(documentChoiceOf(null));
      onUploaded(result);
    } catch (err) {
      setError(err);
    } finally {
      setTask(undefined);
    }
  };

  const total = files.reduce((n, f) => n + f.file.size, 0);
  return (
    <section className="uploader">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the button inside is the keyboard path; dropping is a mouse gesture. */}
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="dropzone"
        onDragEnter={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragOver={(e) => e.preventDefault()}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>
          <strong>Drop files here</strong> or{' '}
          <button type="button" className="link" onClick={() => input.current?.click()} disabled={!!task}>
            choose files
          </button>
        </p>
        <p className="muted small">
          PDF, Word, PowerPoint, Excel, OpenDocument, HTML, Markdown, text, CSV, e-mail, EPUB… several at
          once.
        </p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          onChange={(e) => {
            const list = e.target.files;
            void add(list).finally(() => {
              e.target.value = '';
            });
          }}
        />
      </div>
      {files.length > 0 ? (
        <>
          <ul className="upload-list">
            {files.map(({ key, file: f }, i) => (
              <li key={key} data-testid="upload-file">
                <span className="upload-name">{f.name}</span>
                <span className="muted small">{formatBytes(f.size)}</span>
                <ProgressBar value={progress[i] ?? 0} label={`Upload of ${f.name}`} />
                {!task ? (
                  <button
                    type="button"
                    className="link small"
                    onClick={() => setFiles(files.filter((x) => x.key !== key))}
                  >
                    remove<Hidden> {f.name}</Hidden>
                  </button>
                ) : (
                  <span className="small muted">{Math.round((progress[i] ?? 0) * 100)}%</span>
                )}
              </li>
            ))}
          </ul>
          {workspaceId ? null : (
            <label>
              Name of the new workspace
              <input
                type="text"
                name="workspaceName"
                value={name}
                maxLength={WORKSPACE_NAME_MAX}
                disabled={!!task}
                onChange={(e) => setTypedName(e.target.value)}
              />
            </label>
          )}
          <DocumentAccessChoice
            legend="Who may read these files"
            name="upload-access"
            dir={dir}
            value={access}
            onChange={setAccess}
            disabled={!!task}
          />
          <div className="row">
            {task ? (
              <button type="button" onClick={() => task.abort()}>
                Cancel upload
              </button>
            ) : (
              <button type="button" className="primary" onClick={start}>
                {workspaceId ? 'Add' : 'Upload'} {files.length} {files.length === 1 ? 'file' : 'files'} (
                {formatBytes(total)})
              </button>
            )}
          </div>
        </>
      ) : null}
      {refused.length > 0 ? (
        <div className="error" role="alert" data-testid="refused-files">
          <strong>
            {refused.length === 1
              ? 'This file was not added'
              : `These ${refused.length} files were not added`}
            : DocSlurp cannot read {refused.length === 1 ? 'it' : 'them'}.
          </strong>
          <ul>
            {refused.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: two chosen files may have the same name.
              <li key={i}>
                <strong className="filename">{r.name}</strong>: {r.reason}
              </li>
            ))}
          </ul>
          {formats.data ? (
            <p className="small" data-testid="supported-formats">
              DocSlurp reads {describeFormats(formats.data.formats)}.
            </p>
          ) : null}
        </div>
      ) : null}
      {error ? <ErrorNote error={error} title="Upload failed" /> : null}
    </section>
  );
}
