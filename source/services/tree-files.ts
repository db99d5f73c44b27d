/**
 * Files deltalens itself reads and writes inside trees that untrusted code has touched (a tree a
 * patch was applied to, a tree a test or an audit command ran in with write access), and the
 * files a confined run hands back. Such code can leave anything behind: a link to a host file
 * where a test file was, a folder swapped for a link, a FIFO where a result should be, a file of
 * gigabytes. So, unlike plain `fs` calls:
 *
 * - no link is ever followed: every component below the tree's root is checked with `lstat`, and
 *   the file itself is opened with `O_NOFOLLOW`; a file deltalens writes is first unlinked and
 *   then created with `O_EXCL` (a hard link to something else is replaced, never written through);
 * - files are opened non-blocking and read only when they are regular files, up to a size given
 *   before reading (a FIFO or a device is refused, never waited on);
 * - every refusal is a TreeFileError that names the path relative to the tree, never a host path.
 *
 * No untrusted code runs while deltalens reads or writes a tree (a confined run's processes all end
 * with it), so checking each component and then opening is not racing anything.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import {isAbsolute, join, normalize, sep} from 'node:path';

export class TreeFileError extends Error {}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** `rel` as path components under the tree, or why not (absolute, `..`, empty). */
function componentsOf(rel: string): string[] {
  if (typeof rel !== 'string' || !rel.trim()) throw new TreeFileError('the path is empty');
  if (rel.includes('\0')) throw new TreeFileError(`${JSON.stringify(rel)}: a path cannot hold a NUL byte`);
  if (isAbsolute(rel)) throw new TreeFileError(`${rel}: outside the tree (paths are relative to it)`);
  const parts = normalize(rel)
    .split(sep)
    .filter(p => p && p !== '.');
  if (!parts.length) throw new TreeFileError(`${rel}: the tree itself, not a file in it`);
  if (parts.includes('..')) throw new TreeFileError(`${rel}: outside the tree (paths are relative to it)`);
  return parts;
}

/**
 * The folders from the root down to the file's parent, each a real folder (not a link); with
 * `create`, missing ones are made. Returns the file's full path.
 */
function parentChecked(root: string, rel: string, create: boolean): string {
  const parts = componentsOf(rel);
  let at = root;
  for (const [i, part] of parts.slice(0, -1).entries()) {
    at = join(at, part);
    const st = lstatOrNull(at);
    const shown = parts.slice(0, i + 1).join('/');
    if (st === null) {
      if (!create) throw new TreeFileError(`${rel}: no such file (${shown} does not exist)`);
      mkdirSync(at);
    } else if (st.isSymbolicLink()) throw new TreeFileError(`refused: ${rel} leads through a link (${shown})`);
    else if (!st.isDirectory()) throw new TreeFileError(`${rel}: ${shown} is not a folder`);
  }
  return join(at, parts.at(-1)!);
}

/** What a path is, said plainly. */
function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a link';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** Writes a file of the tree: never through a link, and never into a file that was there (it is replaced). */
export function writeInTree(root: string, rel: string, content: string | Buffer): {path: string; bytes: number} {
  const full = parentChecked(root, rel, true);
  const st = lstatOrNull(full);
  if (st?.isDirectory()) throw new TreeFileError(`${rel} is a folder`);
  if (st) unlinkSync(full);
  const fd = openSync(full, CREATE_FLAGS, 0o644);
  const data = typeof content === 'string' ? Buffer.from(content) : content;
  try {
    for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
  } finally {
    closeSync(fd);
  }
  return {path: full, bytes: data.length};
}

/** Removes a file of the tree (a link is removed itself, not what it points to); missing is fine. */
export function removeInTree(root: string, rel: string): void {
  let full: string;
  try {
    full = parentChecked(root, rel, false);
  } catch {
    return; // its folder is gone or a link: there is no file of ours to remove
  }
  const st = lstatOrNull(full);
  if (st && !st.isDirectory()) unlinkSync(full);
}

interface ReadBack {
  data: Buffer;
  /** the file's size (more than data.length when it was cut) */
  size: number;
  truncated: boolean;
}

/** Reads an open regular file's first `max` bytes. */
function readFd(fd: number, max: number): ReadBack {
  const st = fstatSync(fd);
  if (!st.isFile()) throw new TreeFileError(kindOf(st));
  const want = Math.min(st.size, max);
  const data = Buffer.alloc(want);
  let got = 0;
  while (got < want) {
    const n = readSync(fd, data, got, want - got, got);
    if (n === 0) break;
    got += n;
  }
  return {data: got === want ? data : data.subarray(0, got), size: st.size, truncated: st.size > max};
}

/** Opens a path for reading without following a link or waiting on a FIFO. */
function openForRead(full: string, shown: string): number {
  try {
    return openSync(full, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new TreeFileError(`${shown}: no such file`);
    if (code === 'ELOOP') throw new TreeFileError(`refused: ${shown} is a link`);
    if (code === 'EISDIR') throw new TreeFileError(`${shown} is a folder`);
    throw new TreeFileError(`${shown}: cannot be read (${code ?? (error as Error).message})`);
  }
}

/** Reads at most `max` bytes of a regular file of the tree (no link followed anywhere on the way). */
export function readInTree(root: string, rel: string, max: number): ReadBack {
  const full = parentChecked(root, rel, false);
  const fd = openForRead(full, rel);
  try {
    return readFd(fd, max);
  } catch (error) {
    if (error instanceof TreeFileError && !error.message.startsWith(rel))
      throw new TreeFileError(`${rel}: ${error.message}`);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** The text of a file of the tree, or null when it is missing; refused when it is a link, not a
 * regular file, or larger than `max` bytes. */
export function readTextInTree(root: string, rel: string, max: number): string | null {
  try {
    const r = readInTree(root, rel, max);
    if (r.truncated) throw new TreeFileError(`${rel} is ${r.size} bytes, more than the ${max} read at most`);
    return r.data.toString('utf8');
  } catch (error) {
    if (error instanceof TreeFileError && /: no such file/.test(error.message)) return null;
    throw error;
  }
}

/**
 * A file a confined run wrote for deltalens to read (a result, a list): a regular file, not a link,
 * at most `max` bytes — else refused with `what` named, never waited on.
 */
export function readBack(path: string, max: number, what: string): Buffer {
  const fd = openForRead(path, what);
  try {
    const r = readFd(fd, max);
    if (r.truncated) throw new TreeFileError(`${what} is ${r.size} bytes, more than the ${max} read at most`);
    return r.data;
  } catch (error) {
    if (error instanceof TreeFileError && !error.message.startsWith(what))
      throw new TreeFileError(`${what}: ${error.message}`);
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts the files of `src` (a tree untrusted code never wrote) back into `dst` (one it did): each
 * file, folder and link of `src` replaces whatever `dst` holds at that path — a link there is
 * removed, never followed. What `dst` has beyond `src` stays.
 */
export function restoreTree(src: string, dst: string): void {
  const walk = (rel: string) => {
    for (const entry of readdirSync(rel ? join(src, rel) : src, {withFileTypes: true})) {
      const r = rel ? join(rel, entry.name) : entry.name;
      const from = join(src, r);
      const to = join(dst, r);
      const there = lstatOrNull(to);
      if (entry.isDirectory()) {
        if (there && !there.isDirectory()) unlinkSync(to);
        if (!there?.isDirectory()) mkdirSync(to);
        walk(r);
      } else if (entry.isSymbolicLink()) {
        if (there) rmSync(to, {recursive: true, force: true});
        symlinkSync(readlinkSync(from), to);
      } else if (entry.isFile()) {
        if (there?.isDirectory()) rmSync(to, {recursive: true, force: true});
        const fd = openSync(from, READ_FLAGS);
        let data: Buffer;
        try {
          data = readFd(fd, Number.MAX_SAFE_INTEGER).data;
        } finally {
          closeSync(fd);
        }
        writeInTree(dst, r, data);
      }
    }
  };
  walk('');
}

/**
 * The regular files of a folder a confined run wrote (an example database), copied into `dst`:
 * links, FIFOs and devices are passed over, folders walked without following a link, at most
 * `maxFiles` files of `maxBytes` bytes each. Returns how many were copied.
 */
export function copyRegularFiles(src: string, dst: string, limits: {maxFiles: number; maxBytes: number}): number {
  let copied = 0;
  mkdirSync(dst, {recursive: true});
  const walk = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(rel ? join(src, rel) : src, {withFileTypes: true});
    } catch {
      return;
    }
    for (const entry of entries) {
      if (copied >= limits.maxFiles) return;
      const r = rel ? join(rel, entry.name) : entry.name;
      if (entry.isDirectory()) walk(r);
      else if (entry.isFile()) {
        try {
          const got = readInTree(src, r, limits.maxBytes);
          if (got.truncated) continue;
          writeInTree(dst, r, got.data);
          copied += 1;
        } catch (error) {
          if (!(error instanceof TreeFileError)) throw error;
        }
      }
    }
  };
  walk('');
  return copied;
}
