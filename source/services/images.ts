/**
 * `--image NAME`: a container image's file system as the system the runs see — a SWE-bench
 * evaluation image (`swebench/sweb.eval.x86_64.<instance>`) has the instance's interpreter and
 * packages, and its repository at /testbed at the base commit. No container daemon runs
 * anything: the file system is only read, and bubblewrap confines the runs as always.
 *
 * NAME is a folder holding an unpacked root file system, a tar of one (what `docker export`
 * writes), or an image podman or Docker knows: podman mounts it (`podman image mount`); with
 * Docker only, it is exported once (`docker create` + `docker export`) into deltalens' cache.
 */
import {execa} from 'execa';
import {createHash} from 'node:crypto';
import {existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync} from 'node:fs';
import {homedir} from 'node:os';
import {join, resolve} from 'node:path';

export class ImageError extends Error {}

export interface ImageRoot {
  /** the root file system, read-only to the runs */
  root: string;
  /** how it was found, said to the user */
  how: string;
  /** the image's repository (its /testbed), when it has one */
  testbed: string | null;
}

/** Interpreters a SWE-bench image (and other Python images) keep, first found wins. */
const IMAGE_PYTHONS = ['/opt/miniconda3/envs/testbed/bin/python', '/usr/local/bin/python3', '/usr/bin/python3'];

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'deltalens', 'images');
}

async function onPath(name: string): Promise<boolean> {
  const r = await execa(name, ['--version'], {reject: false, timeout: 30_000});
  return !r.failed;
}

async function untar(file: string, dest: string): Promise<void> {
  const partial = `${dest}.partial-${process.pid}`;
  rmSync(partial, {recursive: true, force: true});
  mkdirSync(partial, {recursive: true});
  // --no-same-owner and no absolute names: a tar from elsewhere writes only under the folder
  const r = await execa('tar', ['-x', '--no-same-owner', '--no-same-permissions', '-f', file, '-C', partial], {
    reject: false,
    timeout: 30 * 60_000,
  });
  if (r.failed) {
    rmSync(partial, {recursive: true, force: true});
    throw new ImageError(`cannot unpack ${file}: ${String(r.stderr).trim().split('\n').at(-1) ?? r.shortMessage}`);
  }
  renameSync(partial, dest);
}

export async function imageRoot(name: string): Promise<ImageRoot> {
  const found = await locate(name);
  const testbed = join(found.root, 'testbed');
  if (!existsSync(join(found.root, 'usr')))
    throw new ImageError(`${name}: ${found.root} has no /usr: not a root file system`);
  return {...found, testbed: existsSync(testbed) && statSync(testbed).isDirectory() ? testbed : null};
}

async function locate(name: string): Promise<{root: string; how: string}> {
  const path = resolve(name);
  if (existsSync(path) && statSync(path).isDirectory()) return {root: path, how: `the root file system in ${path}`};
  if (existsSync(path) && /\.tar$/.test(path)) {
    const key = createHash('sha256')
      .update(`${path}\0${statSync(path).mtimeMs}`)
      .digest('hex')
      .slice(0, 16);
    const dest = join(cacheDir(), `tar-${key}`);
    if (!existsSync(dest)) await untar(path, dest);
    return {root: dest, how: `${path}, unpacked in ${dest}`};
  }
  if (await onPath('podman')) {
    const r = await execa('podman', ['image', 'mount', name], {reject: false, timeout: 120_000});
    if (!r.failed && String(r.stdout).trim()) return {root: String(r.stdout).trim(), how: `podman image mount ${name}`};
    const why = String(r.stderr).trim().split('\n').at(-1) ?? '';
    if (/image not known|no such image|not found/i.test(why))
      throw new ImageError(`podman has no image ${name} (podman pull ${name} first)`);
    if (!(await onPath('docker'))) throw new ImageError(`podman image mount ${name} failed: ${why}`);
  }
  if (await onPath('docker')) {
    const dest = join(cacheDir(), `docker-${name.replace(/[^\w.-]+/g, '_')}`);
    if (existsSync(dest)) return {root: dest, how: `${name}, exported before into ${dest}`};
    const created = await execa('docker', ['create', name], {reject: false, timeout: 300_000});
    if (created.failed)
      throw new ImageError(
        `docker create ${name} failed: ${String(created.stderr).trim().split('\n').at(-1) ?? created.shortMessage} (is the Docker daemon running?)`,
      );
    const id = String(created.stdout).trim();
    const tar = join(cacheDir(), `docker-${process.pid}.tar`);
    mkdirSync(cacheDir(), {recursive: true});
    try {
      const exported = await execa('docker', ['export', '-o', tar, id], {reject: false, timeout: 30 * 60_000});
      if (exported.failed)
        throw new ImageError(
          `docker export ${name} failed: ${String(exported.stderr).trim().split('\n').at(-1) ?? exported.shortMessage}`,
        );
      await untar(tar, dest);
    } finally {
      rmSync(tar, {force: true});
      await execa('docker', ['rm', id], {reject: false, timeout: 60_000});
    }
    return {root: dest, how: `docker export ${name}, unpacked in ${dest}`};
  }
  throw new ImageError(
    `${name}: not a folder or a .tar, and neither podman nor docker is installed to read an image (apt-get install -y podman)`,
  );
}

/** The interpreter to use in an image: the one asked for, else the first of IMAGE_PYTHONS there. */
export function imagePython(root: string, asked: string | undefined): string {
  if (asked) return asked;
  // a link in the image may point to an absolute path of the image: its own entry is enough
  const there = (p: string) => {
    try {
      lstatSync(join(root, p));
      return true;
    } catch {
      return false;
    }
  };
  const found = IMAGE_PYTHONS.find(there);
  if (!found)
    throw new ImageError(
      `no Python in the image at ${IMAGE_PYTHONS.join(', ')}: give --python with the image's interpreter`,
    );
  return found;
}
