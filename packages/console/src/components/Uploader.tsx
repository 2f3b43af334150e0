import type { UploadResult } from '@service/sdk';
import { type DragEvent, useRef, useState } from 'react';
import { type UploadTask, uploadFiles } from '../api';
import { formatBytes } from '../lib/progress';
import { ErrorNote, ProgressBar } from './common';

/**
 * Drop files (or pick them) and upload them in one request, with a progress bar per file. Without a
 * workspace the upload creates one; with one, the files are appended to it.
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
  const input = useRef<HTMLInputElement>(null);

  const add = (list: FileList | null) => {
    if (!list || task) return;
    setError(undefined);
    const added = Array.from(list, (file) => ({ key: nextKey.current++, file }));
    setFiles((prev) => [...prev, ...added]);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    add(e.dataTransfer.files);
  };

  const start = async () => {
    setError(undefined);
    setProgress(files.map(() => 0));
    const t = uploadFiles(
      files.map((f) => f.file),
      workspaceId,
      setProgress,
    );
    setTask(t);
    try {
      const result = await t.promise;
      setFiles([]);
      setProgress([]);
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
          PDF, Word, HTML, Markdown, text, CSV, spreadsheets, zip archives… several at once.
        </p>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="file-input"
          onChange={(e) => {
            add(e.target.files);
            e.target.value = '';
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
                    remove
                  </button>
                ) : (
                  <span className="small muted">{Math.round((progress[i] ?? 0) * 100)}%</span>
                )}
              </li>
            ))}
          </ul>
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
      {error ? <ErrorNote error={error} title="Upload failed" /> : null}
    </section>
  );
}
