/**
 * The bubblewrap sandbox every untrusted run goes through (agent patches, their tests, the
 * tracer that runs them). What the confined process sees:
 *
 * - read-only: /usr (and the /bin, /lib, /sbin links into it), a few files of /etc (the loader
 *   cache, users and groups, time zone, TLS roots), the Python installation (its prefixes and
 *   the user's site-packages, nothing else of the home folder) and the tracer;
 * - writable: the throw-away trees it runs in, and a private, empty /tmp (a tmpfs);
 * - no capabilities, even when deltalens runs as root, and /proc/sys read-only;
 * - no network (a namespace of its own with only loopback), a PID namespace of its own (every
 *   process it starts dies with it, and it dies with deltalens, even on SIGKILL), a new
 *   session (it cannot push keys into the terminal), a new IPC, UTS and cgroup namespace;
 * - an environment built from an allowlist, not the caller's minus a denylist.
 *
 * Not visible at all: the user's repository and its .git, deltalens' database, the home folder,
 * /run, /sys, other processes. What the sandbox does not stop is written in readme.md.
 */
import {execa} from 'execa';
import {existsSync, lstatSync, readdirSync, readlinkSync, realpathSync} from 'node:fs';
import {delimiter, dirname, isAbsolute, join, resolve} from 'node:path';

/**
 * - `require`: untrusted code; refused when bwrap cannot run.
 * - `prefer`: code we ship (the bundled demo projects and patches): confined when bwrap runs,
 *   else run as it is, and recorded as unconfined.
 * - `off`: the user said --no-sandbox: unconfined, with a warning on every run.
 */
export type SandboxPolicy = 'require' | 'prefer' | 'off';

export const INSTALL_HINT = 'apt-get install -y bubblewrap';

export class SandboxMissing extends Error {}

interface SandboxStatus {
  available: boolean;
  bwrap: string | null;
  version: string | null;
  /** why it cannot be used (not installed, or installed but namespaces are not allowed here) */
  problem: string | null;
}

let cached: Promise<SandboxStatus> | null = null;

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const full = join(dir, name);
    if (existsSync(full)) return full;
  }
  return null;
}

/** Whether bwrap is installed and can make namespaces here (tried once per process). */
export function sandboxStatus(): Promise<SandboxStatus> {
  cached ??= (async () => {
    const bwrap = process.env.DELTALENS_BWRAP ?? onPath('bwrap');
    if (!bwrap || !existsSync(bwrap))
      return {available: false, bwrap: null, version: null, problem: 'bwrap (bubblewrap) is not installed'};
    const v = await execa(bwrap, ['--version'], {reject: false, timeout: 10_000});
    const version =
      String(v.stdout)
        .trim()
        .replace(/^bubblewrap\s*/, '') || null;
    const trial = await execa(bwrap, [...baseArgs(), '--', '/usr/bin/true'], {
      reject: false,
      timeout: 10_000,
      env: {PATH: '/usr/bin:/bin'},
      extendEnv: false,
    });
    if (trial.failed) {
      return {
        available: false,
        bwrap,
        version,
        problem: `bwrap is installed but cannot create its namespaces here: ${String(trial.stderr).trim().split('\n')[0] || trial.shortMessage}`,
      };
    }
    return {available: true, bwrap, version, problem: null};
  })();
  return cached;
}

/** The confinement a run gets, decided once per command from the policy and what the machine has. */
export interface Confinement {
  confined: boolean;
  bwrap: string | null;
  /** stored with every trace: "bwrap 0.8.0", "none (--no-sandbox)", "none (bundled demo; bwrap not installed)" */
  label: string;
}

export async function confinement(policy: SandboxPolicy): Promise<Confinement> {
  if (policy === 'off') return {confined: false, bwrap: null, label: 'none (--no-sandbox)'};
  const status = await sandboxStatus();
  if (status.available) return {confined: true, bwrap: status.bwrap, label: `bwrap ${status.version ?? ''}`.trim()};
  if (policy === 'prefer') return {confined: false, bwrap: null, label: `none (bundled demo; ${status.problem})`};
  throw new SandboxMissing(
    `untrusted code (patches and their tests) runs only inside the bubblewrap sandbox, and ${status.problem}; install it (${INSTALL_HINT}), or pass --no-sandbox to run it unconfined`,
  );
}

/** What the sandbox must show of a Python interpreter for it to run (from `probePython`). */
export interface PythonInstall {
  version: string;
  /** sys.executable as Python reports it (a venv's bin/python stays a venv's) */
  executable: string;
  /** sys.prefix, base_prefix, exec_prefix, base_exec_prefix and the executable's real folder */
  roots: string[];
  /** the user's site-packages, when Python would use it (pip install --user) */
  userSite: string | null;
  userBase: string | null;
}

/** Where the tracer package appears inside the sandbox (the deltalens install stays hidden). */
export const SANDBOX_TRACER = '/opt/deltalens/tracer';

// /etc entries programs need to start and to resolve users, time and certificates
const ETC = [
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'passwd',
  'group',
  'nsswitch.conf',
  'localtime',
  'timezone',
  'hosts',
  'alternatives',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'mime.types',
  'os-release',
  'locale.alias',
];

/** A system Python reads /etc/pythonX.Y (sitecustomize); every such folder is shown. */
function etcEntries(): string[] {
  let python: string[] = [];
  try {
    python = readdirSync('/etc').filter(name => /^python[\d.]*$/.test(name));
  } catch {
    python = [];
  }
  return [...ETC, ...python];
}

/**
 * The namespaces and the minimal root every confined run starts from.
 *
 * Run by root (CI, containers), bubblewrap keeps every capability inside the sandbox, and the
 * confined code is uid 0 of the host: it could remount a read-only bind writable, and write the
 * kernel's global settings under /proc/sys (core_pattern runs a program as root on the next crash).
 * So every capability is dropped, whoever runs deltalens (bwrap sets no_new_privs itself, so
 * none comes back through a setuid program), and /proc/sys and /proc/sysrq-trigger are bound
 * read-only over the sandbox's /proc (bwrap covers /proc/irq and /proc/bus itself).
 */
function baseArgs(): string[] {
  const args = [
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const top of ['/bin', '/lib', '/lib32', '/lib64', '/libx32', '/sbin']) {
    if (!existsSync(top)) continue;
    const st = lstatSync(top);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else args.push('--ro-bind', top, top);
  }
  for (const entry of etcEntries()) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const covered of ['/proc/sys', '/proc/sysrq-trigger']) args.push('--ro-bind-try', covered, covered);
  args.push('--tmpfs', '/tmp', '--dir', '/tmp/home');
  return args;
}

function under(path: string, roots: string[]): boolean {
  return roots.some(r => path === r || path.startsWith(r.endsWith('/') ? r : `${r}/`));
}

/**
 * Where a traced tree appears inside the sandbox: the path SWE-bench's images use. The buggy
 * and the patched tree of a pair both run there, so no value that holds a path (a module's
 * `__file__`, a cache key, a traceback, pytest's `item.path`) differs between the two sides.
 */
export const TESTBED = '/testbed';

/** Where the tracer appears inside an image's file system (the image's own /opt stays as it is). */
const IMAGE_TRACER = '/deltalens/tracer';

// top-level entries of an image that the sandbox makes itself or that hold no system files
const IMAGE_SKIP = new Set([
  'proc',
  'dev',
  'sys',
  'tmp',
  'run',
  'testbed',
  'deltalens',
  'mnt',
  'media',
  'lost+found',
  'home',
  'root',
  'boot',
]);

/**
 * The namespaces and the root of a run inside an image's file system (a SWE-bench evaluation
 * image, unpacked or mounted): every top-level folder of the image read-only at its own path
 * (/usr, /etc, /opt/miniconda3 …), its links as links; a private /tmp, /dev and /proc as for any
 * confined run. Its /testbed is not shown: the throw-away tree is there instead.
 */
export function imageBaseArgs(root: string): string[] {
  const args = ['--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  for (const entry of readdirSync(root).sort()) {
    if (IMAGE_SKIP.has(entry)) continue;
    const full = join(root, entry);
    const st = lstatSync(full);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(full), `/${entry}`);
    else if (st.isDirectory() || st.isFile()) args.push('--ro-bind', full, `/${entry}`);
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const covered of ['/proc/sys', '/proc/sysrq-trigger']) args.push('--ro-bind-try', covered, covered);
  args.push('--tmpfs', '/tmp', '--dir', '/tmp/home');
  return args;
}

interface Jail {
  /** an image's root file system: the run's system instead of the host's */
  image?: string;
  /** folders the run may write (bound at the same path, but `testbed`) */
  writable: string[];
  /** the one writable folder shown at TESTBED instead of its own path */
  testbed?: string;
  /** more folders it may read */
  readable?: string[];
  cwd: string;
  python: PythonInstall;
  tracerDir: string;
}

/** bwrap's arguments for a run (everything before the command). Argument arrays only. */
export function bwrapArgs(j: Jail): string[] {
  const args = j.image ? imageBaseArgs(j.image) : baseArgs();
  const system = ['/usr', '/bin', '/lib', '/lib32', '/lib64', '/libx32', '/sbin'];
  const ro = new Set<string>();
  // in an image, its interpreter is already there: only the host folders asked for are bound
  const pythonDirs = j.image ? [] : [...j.python.roots, ...(j.python.userSite ? [j.python.userSite] : [])];
  for (const dir of [...pythonDirs, ...(j.readable ?? [])]) {
    if (!isAbsolute(dir) || !existsSync(dir) || under(dir, system) || under(dir, j.writable)) continue;
    ro.add(dir);
  }
  // a folder inside another bound folder is bound by it
  const list = [...ro].sort();
  for (const dir of list)
    if (!list.some(other => other !== dir && under(dir, [other]))) args.push('--ro-bind', dir, dir);
  args.push('--ro-bind', j.tracerDir, j.image ? IMAGE_TRACER : SANDBOX_TRACER);
  for (const dir of j.writable) args.push('--bind', dir, dir === j.testbed ? TESTBED : dir);
  // the sandbox's own root (a tmpfs bwrap makes) becomes read-only: only the trees, /tmp and
  // /dev (private, memory-backed, gone with the run) can be written
  args.push('--remount-ro', '/', '--chdir', j.testbed ? atTestbed(j.testbed, j.cwd) : j.cwd);
  return args;
}

/** A host path as the sandbox shows it when `tree` is at TESTBED (other paths unchanged). */
export function atTestbed(tree: string, path: string): string {
  if (path === tree) return TESTBED;
  return path.startsWith(`${tree}/`) ? `${TESTBED}${path.slice(tree.length)}` : path;
}

const PASSED_BY_DEFAULT = [
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'LC_MONETARY',
  'TZ',
];

/**
 * The environment of an untrusted run, from an allowlist: PATH (the interpreter's folder
 * first), locale and time zone, a private HOME and TMPDIR, the Python variables the tracer
 * sets, and what the user names with --pass-env. Nothing else of the caller's reaches it
 * (API keys, database URLs, tokens, proxy credentials).
 */
export function runEnv(o: {
  python: PythonInstall;
  confined: boolean;
  tracerDir: string;
  passEnv?: string[];
  extra?: Record<string, string>;
  image?: boolean;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...PASSED_BY_DEFAULT, ...(o.passEnv ?? [])]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // in an image, its own system's PATH (the host's folders are not there)
  const system = o.image
    ? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin');
  env.PATH = [dirname(o.python.executable), ...system.split(delimiter)].join(delimiter);
  if (o.confined) {
    env.HOME = '/tmp/home';
    env.TMPDIR = '/tmp';
  } else if (process.env.HOME) {
    env.HOME = process.env.HOME;
  }
  if (o.python.userBase) env.PYTHONUSERBASE = o.python.userBase;
  env.PYTHONPATH = o.confined ? (o.image ? IMAGE_TRACER : SANDBOX_TRACER) : o.tracerDir;
  env.PYTHONHASHSEED = '0';
  env.PYTHONUNBUFFERED = '1';
  return {...env, ...o.extra};
}

/** `--pass-env NAME`: names only (values come from deltalens' own environment). */
export function parsePassEnv(names: string[] | undefined): string[] {
  const out: string[] = [];
  for (const name of names ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new RangeError(`--pass-env takes a variable name (got "${name}")`);
    out.push(name);
  }
  return out;
}

/** The real folder of a path, or the path itself when it does not exist. */
export function real(path: string): string {
  try {
    return realpathSync(resolve(path));
  } catch {
    return resolve(path);
  }
}
