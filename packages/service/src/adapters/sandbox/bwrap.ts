import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the document being parsed appears inside the sandbox; never the uploader's file name. Its
 * folder is the process's inbox on the host, bound read-only, where each document is placed in turn.
 */
export const SANDBOX_INPUT = '/input/document';

/** The programs and folders the parser process needs, all mounted read-only. */
export interface SandboxLayout {
  nodePath: string;
  entry: string;
  readOnly: string[];
}

/** The service's parser entry and every folder its imports resolve from. */
export function sandboxLayout(packageRoot: string, nodePath = process.execPath): SandboxLayout {
  const readOnly = [packageRoot];
  for (let dir = packageRoot; ; dir = path.dirname(dir)) {
    const modules = path.join(dir, 'node_modules');
    if (dir !== packageRoot && existsSync(modules)) readOnly.push(modules);
    if (path.dirname(dir) === dir) break;
  }
  if (!nodePath.startsWith('/usr/')) readOnly.push(path.dirname(path.dirname(nodePath)));
  return { nodePath, entry: path.join(packageRoot, 'dist', 'parser.js'), readOnly };
}

/** Top-level system folders: merged-/usr systems have them as symlinks, which the sandbox recreates. */
const SYSTEM_DIRS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Configuration the tools read (dynamic linker cache, fonts for LibreOffice, its own settings). */
const SYSTEM_FILES = ['/etc/ld.so.cache', '/etc/fonts', '/etc/libreoffice', '/etc/alternatives'];

function systemMounts(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of SYSTEM_DIRS) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (stat.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const file of SYSTEM_FILES) args.push('--ro-bind-try', file, file);
  return args;
}

export const SANDBOX_ENV: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/tmp',
  TMPDIR: '/tmp',
  LANG: 'C.UTF-8',
  // Tesseract would otherwise start a thread per core and compete with the other documents.
  OMP_THREAD_LIMIT: '1',
};

/**
 * bubblewrap arguments for one parser process: every namespace unshared (so no network), all
 * capabilities dropped, a clean environment, the system and the service mounted read-only, the inbox
 * read-only, and a private size-limited /tmp as the only writable place. The root is remounted
 * read-only last, so not even the mount points can be written.
 */
export function bwrapArgs(layout: SandboxLayout, inbox: string | undefined, tmpBytes: number): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    ...systemMounts(),
    '--size',
    String(tmpBytes),
    '--tmpfs',
    '/tmp',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
  ];
  for (const dir of layout.readOnly) args.push('--ro-bind', dir, dir);
  if (inbox) args.push('--ro-bind', inbox, path.dirname(SANDBOX_INPUT));
  // /dev is a tmpfs of its own with no size limit: read-only, so the size-limited /tmp stays the only
  // place anything can be written.
  args.push('--remount-ro', '/dev', '--remount-ro', '/', '--chdir', '/tmp');
  for (const [k, v] of Object.entries(SANDBOX_ENV)) args.push('--setenv', k, v);
  return args;
}

/** Plain words for the usual reasons bubblewrap cannot start, appended to its own message. */
export function explainBwrapFailure(stderr: string): string {
  const message = stderr.trim().split('\n').slice(-3).join(' ').trim() || 'bwrap failed without a message';
  if (/user namespace|uid map|setting up uid|No permissions to creat/i.test(message)) {
    return `${message} (the host forbids unprivileged user namespaces: check sysctl kernel.unprivileged_userns_clone, and on Ubuntu 23.10+ kernel.apparmor_restrict_unprivileged_userns; in a container keep the compose file's security_opt entries)`;
  }
  if (/mount|proc|Operation not permitted/i.test(message)) {
    return `${message} (the host forbids the mounts the sandbox needs: in a container run with security_opt seccomp=unconfined, apparmor=unconfined and systempaths=unconfined as the shipped compose file does)`;
  }
  return message;
}

/** The bubblewrap program: a file named by the setting itself, or `bwrap` in one of its folders. */
export function findBwrap(searchPath: string): string | undefined {
  for (const entry of searchPath.split(':')) {
    if (!entry) continue;
    const candidate = entry.endsWith('/bwrap') ? entry : path.join(entry, 'bwrap');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
