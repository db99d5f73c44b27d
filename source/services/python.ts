/**
 * Running Python for the tracer: the only place deltalens starts untrusted code. Argument
 * arrays only (never a shell), inside the bubblewrap sandbox (services/sandbox.ts) unless the
 * user said --no-sandbox, a wall-clock timeout that kills the whole process group, capped
 * output, and an environment from an allowlist.
 */
import {execa} from 'execa';
import {join} from 'node:path';
import {packageRoot} from '../package-root.js';
import {forget, makeTempDir} from './leftovers.js';
import {readBack} from './tree-files.js';
import {
  atTestbed,
  bwrapArgs,
  confinement,
  imageBaseArgs,
  runEnv,
  TESTBED,
  type Confinement,
  type PythonInstall,
  type SandboxPolicy,
} from './sandbox.js';

export const TRACER_DIR = join(packageRoot(), 'tracer');

export class PythonError extends Error {}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** One interpreter and one confinement, shared by every run of a command. */
export interface PythonRunner {
  install: PythonInstall;
  /** an image's root file system the runs see as their system (--image), with its interpreter */
  image?: string;
  confinement: Confinement;
  policy: SandboxPolicy;
  passEnv: string[];
  /** told once per unconfined run (--no-sandbox) */
  onWarning: (message: string) => void;
}

const CAP = 64 * 1024;

/** Process groups still running; killed if deltalens exits first (e.g. quit during a live re-run). */
const running = new Set<number>();
let exitHook = false;
function track(pid: number | undefined): void {
  if (pid === undefined) return;
  running.add(pid);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', killAll);
  }
}

/** Kills every child process group still running (synchronous: safe in an exit handler). */
function killAll(): void {
  for (const group of running) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

function tail(buf: string, chunk: string): string {
  const next = buf + chunk;
  return next.length > CAP ? `…${next.slice(next.length - CAP)}` : next;
}

const PROBE = `import json, os, site, sys
roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))}
user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "executable": sys.executable, "roots": sorted(r for r in roots if r),
  "userSite": user if user and os.path.isdir(user) else None, "userBase": site.getuserbase() if user and os.path.isdir(user) else None}))`;

/** The interpreters the tracer runs on: CPython 3.6 (Django 3.0's SWE-bench image) to 3.13. */
const OLDEST_PYTHON = [3, 6] as const;

function atLeast(version: string, major: number, minor: number): boolean {
  const [a, b] = version.split('.').map(Number) as [number, number];
  return a > major || (a === major && b >= minor);
}

/**
 * What the interpreter needs to be visible (its prefixes, its user site-packages) and its
 * version (≥ 3.6). The interpreter is the user's choice, run outside the sandbox with our own
 * three lines of code; no project code runs here.
 */
export async function probePython(python: string): Promise<PythonInstall> {
  const r = await execa(python, ['-c', PROBE], {
    reject: false,
    timeout: 30_000,
    stdin: 'ignore',
    env: {PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/'},
    extendEnv: false,
  });
  if ((r as {code?: string}).code === 'ENOENT')
    throw new PythonError(`cannot run ${python}: not found (give --python PATH)`);
  let install: PythonInstall;
  try {
    install = JSON.parse(String(r.stdout).trim().split('\n').at(-1) ?? '') as PythonInstall;
  } catch {
    throw new PythonError(
      `cannot run ${python}: ${String(r.stderr).trim().split('\n').at(-1) || r.shortMessage || `exit code ${r.exitCode}`} (give --python PATH)`,
    );
  }
  if (!atLeast(install.version, ...OLDEST_PYTHON))
    throw new PythonError(
      `${python} is Python ${install.version}; the tracer needs Python ≥ ${OLDEST_PYTHON.join('.')}`,
    );
  return install;
}

/** An interpreter inside an image's file system, asked (confined, in the image) what it is. */
async function probeImagePython(python: string, root: string, bwrap: string): Promise<PythonInstall> {
  const r = await execa(bwrap, [...imageBaseArgs(root), '--remount-ro', '/', '--', python, '-c', PROBE], {
    reject: false,
    timeout: 30_000,
    stdin: 'ignore',
    env: {PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp/home'},
    extendEnv: false,
  });
  let install: PythonInstall;
  try {
    install = JSON.parse(String(r.stdout).trim().split('\n').at(-1) ?? '') as PythonInstall;
  } catch {
    throw new PythonError(
      `cannot run ${python} in the image: ${String(r.stderr).trim().split('\n').at(-1) || `exit code ${r.exitCode}`} (give --python with the image's interpreter, e.g. /opt/miniconda3/envs/testbed/bin/python)`,
    );
  }
  if (!atLeast(install.version, ...OLDEST_PYTHON))
    throw new PythonError(
      `${python} in the image is Python ${install.version}; the tracer needs Python ≥ ${OLDEST_PYTHON.join('.')}`,
    );
  return {...install, userSite: null, userBase: null};
}

/**
 * The interpreter for the parse-only helpers (`expected`, `mutants`, `exprs`: ast, no project
 * code), which need Python ≥ 3.9 (`ast.unparse`, end positions): the project's own when it is
 * that new, else $DELTALENS_TOOLS_PYTHON or python3 — confined the same way.
 */
export async function toolsRunner(runner: PythonRunner): Promise<PythonRunner> {
  if (atLeast(runner.install.version, 3, 9)) return runner;
  if (runner.image)
    return toolsRunner({
      ...runner,
      image: undefined,
      install: await probePython(process.env.DELTALENS_TOOLS_PYTHON ?? 'python3'),
    });
  const exe = process.env.DELTALENS_TOOLS_PYTHON ?? 'python3';
  const install = await probePython(exe);
  if (!atLeast(install.version, 3, 9)) {
    throw new PythonError(
      `the question helpers parse with Python ≥ 3.9, and ${runner.install.executable} is ${runner.install.version} and ${exe} is ${install.version}: set $DELTALENS_TOOLS_PYTHON to a Python ≥ 3.9`,
    );
  }
  // the host's interpreter, on the host's system (never inside an image)
  return {...runner, install, image: undefined};
}

/**
 * The interpreter and the sandbox for a command's untrusted runs. Throws SandboxMissing when
 * the policy requires bwrap and it cannot run here.
 */
export async function pythonRunner(
  python: string,
  policy: SandboxPolicy,
  o: {passEnv?: string[]; onWarning?: (message: string) => void; image?: string} = {},
): Promise<PythonRunner> {
  if (o.image) {
    if (policy === 'off')
      throw new PythonError(
        "--image runs inside the sandbox (its file system becomes the run's system): it cannot be combined with --no-sandbox",
      );
    const box = await confinement(policy);
    if (!box.confined)
      throw new PythonError(`--image runs inside the sandbox, and it is not available here (${box.label})`);
    return {
      install: await probeImagePython(python, o.image, box.bwrap!),
      image: o.image,
      confinement: box,
      policy,
      passEnv: o.passEnv ?? [],
      onWarning: o.onWarning ?? (message => process.stderr.write(`deltalens: ${message}\n`)),
    };
  }
  const install = await probePython(python);
  return {
    install,
    confinement: await confinement(policy),
    policy,
    passEnv: o.passEnv ?? [],
    onWarning: o.onWarning ?? (message => process.stderr.write(`deltalens: ${message}\n`)),
  };
}

interface RunOptions {
  cwd: string;
  timeoutMs: number;
  /** the folders the run may write (the throw-away trees) */
  writable: string[];
  /** more folders it may read (e.g. the other tree, for `deltatrace changes`) */
  readable?: string[];
  /**
   * The tree the run is about (one of `writable`): confined, it is shown at /testbed and every
   * argument naming a path in it is rewritten to match, so both sides of a pair run at one
   * path; unconfined (--no-sandbox), the tracer writes that path as /testbed in the values it
   * records instead.
   */
  testbed?: string;
  signal?: AbortSignal;
  env?: Record<string, string>;
  /** receives what the run writes to its file descriptor 3 (the trace, streamed) */
  onTrace?: (chunk: Buffer) => void;
  /** written to the run's stdin (then closed): data too large for an argument list */
  input?: string;
}

/**
 * Runs `python args…` in `cwd`, confined. Never rejects for the child's own failure: the
 * caller reads exitCode / timedOut. Rejects only when Python (or bwrap) cannot be started.
 */
export async function runPython(runner: PythonRunner, args: string[], options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const {confined, bwrap} = runner.confinement;
  if (!confined && runner.policy === 'off')
    runner.onWarning(
      `running untrusted code WITHOUT the sandbox (--no-sandbox): python ${args.slice(0, 3).join(' ')} … in ${options.cwd}`,
    );
  const tree = options.testbed;
  const env = runEnv({
    python: runner.install,
    confined,
    image: Boolean(runner.image),
    tracerDir: TRACER_DIR,
    passEnv: runner.passEnv,
    extra: {...options.env, ...(tree && !confined ? {DELTATRACE_ROOT_ALIAS: TESTBED} : {})},
  });
  const [file, argv] = confined
    ? [
        bwrap!,
        [
          ...bwrapArgs({
            writable: options.writable,
            readable: options.readable,
            cwd: options.cwd,
            python: runner.install,
            tracerDir: TRACER_DIR,
            testbed: tree,
            image: runner.image,
          }),
          '--',
          runner.install.executable,
          ...(tree ? args.map(a => atTestbed(tree, a)) : args),
        ],
      ]
    : [runner.install.executable, args];
  const child = execa(file, argv, {
    cwd: options.cwd,
    env,
    extendEnv: false,
    detached: true, // its own process group, so a timeout kills pytest's children too
    reject: false,
    buffer: false,
    stdio: [
      options.input === undefined ? 'ignore' : 'pipe',
      'pipe',
      'pipe',
      ...(options.onTrace ? (['pipe'] as const) : []),
    ],
  });
  track(child.pid);
  if (options.input !== undefined && child.stdin) {
    child.stdin.on('error', () => {}); // the run may end without reading it all
    child.stdin.end(options.input);
  }
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout = tail(stdout, c)));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr = tail(stderr, c)));
  if (options.onTrace)
    (child.stdio[3] as NodeJS.ReadableStream | undefined)?.on('data', (c: Buffer) => options.onTrace!(c));
  let timedOut = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  // When the run's own process ends, whatever it started in its process group goes too, and
  // its output pipes are closed after a moment: without the sandbox, a child that left the
  // group (setsid) could otherwise hold them open and keep deltalens waiting.
  child.once('exit', () => {
    killGroup();
    setTimeout(() => {
      for (const stream of [child.stdout, child.stderr, child.stdio[3]])
        (stream as (NodeJS.ReadableStream & {destroy?: () => void}) | undefined)?.destroy?.();
    }, 2000).unref();
  });
  const onAbort = () => killGroup();
  if (options.signal?.aborted) killGroup();
  options.signal?.addEventListener('abort', onAbort);
  try {
    const result = await child;
    const code = (result as {code?: string}).code;
    if (code === 'E2BIG')
      throw new PythonError(
        `cannot start the run: its arguments are too long for the system (${argv.reduce((n, a) => n + a.length + 1, 0)} bytes)`,
      );
    if (code === 'ENOENT' || (result.failed && result.exitCode === undefined && !timedOut && !result.signal)) {
      // execa's message repeats the whole command line: only the program is named
      throw new PythonError(
        `cannot run ${file}: ${code ?? 'it did not start'}${confined ? '' : ' (give --python PATH)'}`,
      );
    }
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      timedOut,
      stdout,
      stderr,
      ms: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    if (child.pid !== undefined) running.delete(child.pid);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The most a `deltatrace eval` answer may be: the values of every expression, serialized. */
const MAX_EVAL_BYTES = 64 * 1024 * 1024;

/**
 * Runs `deltatrace eval` (its arguments after `eval`) with its answer written to a file of its
 * own and read back: the values of large objects do not fit the captured output (64 KiB), and the
 * test it runs prints there too. Null with what went wrong when there is no answer.
 */
export async function runEval<T>(
  runner: PythonRunner,
  args: string[],
  o: Omit<RunOptions, 'writable'> & {writable: string[]},
): Promise<{answer: T} | {answer: null; why: string}> {
  const dir = makeTempDir('eval');
  try {
    const file = join(dir, 'answer.json');
    const r = await runPython(runner, ['-m', 'deltatrace', 'eval', '--out', file, ...args], {
      ...o,
      writable: [...o.writable, dir],
    });
    if (r.timedOut) return {answer: null, why: 'timed out'};
    try {
      return {answer: JSON.parse(readBack(file, MAX_EVAL_BYTES, 'the evaluated expressions').toString('utf8')) as T};
    } catch {
      return {answer: null, why: `deltatrace eval failed: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`};
    }
  } finally {
    forget(dir);
  }
}
