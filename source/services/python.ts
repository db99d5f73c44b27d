/**
 * Running Python for the tracer: the only place deltalens starts untrusted code. Argument
 * arrays only (never a shell), a wall-clock timeout that kills the whole process group,
 * capped output, and an environment without API keys or tokens.
 */
import {execa} from 'execa';
import {join} from 'node:path';
import {packageRoot} from '../package-root.js';

export const TRACER_DIR = join(packageRoot(), 'tracer');

export class PythonError extends Error {}

const SECRET = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

/** The child's environment: ours minus anything that looks like a secret. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || SECRET.test(key) || key.startsWith('OPENAI_') || key.startsWith('ANTHROPIC_')) continue;
    env[key] = value;
  }
  env.PYTHONPATH = TRACER_DIR + (env.PYTHONPATH ? `:${env.PYTHONPATH}` : '');
  env.PYTHONHASHSEED = '0';
  env.PYTHONDONTWRITEBYTECODE = '1';
  env.PYTHONUNBUFFERED = '1';
  return {...env, ...extra};
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
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
    process.on('exit', () => {
      for (const group of running) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    });
  }
}

function tail(buf: string, chunk: string): string {
  const next = buf + chunk;
  return next.length > CAP ? `…${next.slice(next.length - CAP)}` : next;
}

/**
 * Runs `python args…` in `cwd`. Never rejects for the child's own failure: the caller
 * reads exitCode / timedOut. Rejects only when Python cannot be started at all.
 */
export async function runPython(
  python: string,
  args: string[],
  options: {cwd: string; timeoutMs: number; signal?: AbortSignal; env?: Record<string, string>},
): Promise<RunResult> {
  const started = Date.now();
  const child = execa(python, args, {
    cwd: options.cwd,
    env: childEnv(options.env),
    extendEnv: false,
    detached: true, // its own process group, so a timeout kills pytest's children too
    reject: false,
    buffer: false,
    stdin: 'ignore',
  });
  track(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (stdout = tail(stdout, c)));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr = tail(stderr, c)));
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
  const onAbort = () => killGroup();
  options.signal?.addEventListener('abort', onAbort);
  try {
    const result = await child;
    if ((result as {code?: string}).code === 'ENOENT' || (result.failed && result.exitCode === undefined && !timedOut && !result.signal)) {
      throw new PythonError(`cannot run ${python}: ${result.shortMessage ?? 'not found'} (give --python PATH)`);
    }
    return {exitCode: result.exitCode ?? null, signal: result.signal ?? null, timedOut, stdout, stderr, ms: Date.now() - started};
  } finally {
    clearTimeout(timer);
    if (child.pid !== undefined) running.delete(child.pid);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Checks that `python` runs and is ≥ 3.9; returns its version. */
export async function checkPython(python: string): Promise<string> {
  const r = await runPython(python, ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], {cwd: process.cwd(), timeoutMs: 30_000});
  const version = r.stdout.trim();
  if (r.exitCode !== 0 || !/^\d+\.\d+\.\d+$/.test(version)) {
    throw new PythonError(`cannot run ${python}: ${r.stderr.trim() || `exit code ${r.exitCode}`} (give --python PATH)`);
  }
  const [major, minor] = version.split('.').map(Number) as [number, number];
  if (major < 3 || (major === 3 && minor < 9)) throw new PythonError(`${python} is Python ${version}; the tracer needs Python ≥ 3.9`);
  return version;
}
