/**
 * A small container-image file system made from the host's own files (no network): the system
 * Python (/usr/bin/python3.X), its standard library, the shared libraries it and its extension
 * modules need (from ldd), merged-/usr links, and a repository at /testbed — the layout of a
 * SWE-bench evaluation image, at a few tens of megabytes.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync} from 'node:fs';
import {dirname, join} from 'node:path';

/** The host's system Python (the one in /usr/bin), or why there is none to build from. */
export function systemPython(): {exe: string; version: string} | string {
  const exe = ['/usr/bin/python3'].find(p => existsSync(p));
  if (!exe) return 'no /usr/bin/python3 on this machine to build a test image from';
  const r = spawnSync(exe, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], {encoding: 'utf8'});
  if (r.status !== 0) return `${exe} does not run`;
  return {exe: realpathSync(exe), version: r.stdout.trim()};
}

function libsOf(file: string): string[] {
  const r = spawnSync('ldd', [file], {encoding: 'utf8'});
  if (r.status !== 0) return [];
  return [...r.stdout.matchAll(/(\/\S+) \(0x/g)].map(m => m[1]!);
}

/** Builds the file system in `root` with `testbed` copied to /testbed; returns its interpreter's path in it. */
export function makeImage(root: string, testbed: string): string {
  const py = systemPython();
  if (typeof py === 'string') throw new Error(py);
  mkdirSync(join(root, 'usr', 'bin'), {recursive: true});
  mkdirSync(join(root, 'usr', 'lib'), {recursive: true});
  mkdirSync(join(root, 'etc'), {recursive: true});
  for (const link of ['bin', 'lib', 'lib64', 'sbin']) symlinkSync(`usr/${link}`, join(root, link));
  mkdirSync(join(root, 'usr', 'lib64'), {recursive: true});
  const stdlib = `/usr/lib/python${py.version}`;
  cpSync(stdlib, join(root, stdlib), {
    recursive: true,
    filter: src => !src.includes('__pycache__') && !src.includes('/test/') && !src.includes('site-packages'),
  });
  const target = `/usr/bin/python${py.version}`;
  copyFileSync(py.exe, join(root, target));
  execFileSync('chmod', ['755', join(root, target)]);
  symlinkSync(`python${py.version}`, join(root, 'usr', 'bin', 'python3'));
  const libs = new Set<string>(libsOf(py.exe));
  const dynload = join(stdlib, 'lib-dynload');
  if (existsSync(dynload))
    for (const so of readdirSync(dynload)) for (const lib of libsOf(join(dynload, so))) libs.add(lib);
  for (const lib of libs) {
    // merged /usr: /lib/x86_64-linux-gnu/libc.so.6 lives in /usr/lib/…
    const dest = join(root, lib.replace(/^\/lib(64)?\//, '/usr/lib$1/'));
    mkdirSync(dirname(dest), {recursive: true});
    if (!existsSync(dest)) copyFileSync(realpathSync(lib), dest);
  }
  cpSync(testbed, join(root, 'testbed'), {recursive: true});
  return '/usr/bin/python3';
}
