/**
 * The explanation audit's tools (ExplainBench §6): what an auditing model may do to test a
 * patch's explanation, every one on throw-away trees and every run in the sandbox.
 *
 * Three trees: `buggy` and `patched` (the buggy tree and the same with the agent's patch; only
 * the audit's test file is ever written into them) for `diff_execution`, and `work`, the model's
 * own copy of the buggy tree, where `read_file`, `write_file`, `apply_patch`, `revert_patch` and
 * `bash` act. A tool never throws: a bad call (a path outside the tree, a patch that does not
 * apply, a runaway command) comes back as a result the model can read.
 */
import {cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync} from 'node:fs';
import {dirname, join, relative, resolve, sep} from 'node:path';
import type {Db} from '../store/db.js';
import {forget, makeTempDir} from './leftovers.js';
import {pythonRunner, runPython, type PythonRunner} from './python.js';
import type {SandboxPolicy} from './sandbox.js';
import {tracePair} from './tracing.js';
import {StoredTrace} from '../store/stored-trace.js';
import {prepareWorkspace, type Workspace} from './workspace.js';

export const AUDIT_TEST = 'test_deltalens_audit.py';

export interface AuditToolOptions {
  instance: string;
  /** the buggy tree (a folder, copied) */
  buggyDir: string;
  /** the agent's patch (unified diff text) */
  patch: string;
  python: string;
  sandbox: SandboxPolicy;
  passEnv?: string[];
  /** per test run and per bash command, seconds */
  timeoutS: number;
  /** characters of output a tool result carries at most */
  maxOutput: number;
}

export interface RunOutcome {
  exit_code: number | null;
  outcome: 'passed' | 'failed' | 'error' | 'timeout';
  stdout: string;
  stderr: string;
}

const tailOf = (text: string, n: number) => (text.length > n ? `…${text.slice(text.length - n)}` : text);

export class AuditTools {
  private constructor(
    readonly db: Db,
    readonly o: AuditToolOptions,
    readonly runner: PythonRunner,
    readonly ws: Workspace,
    readonly work: string,
    private readonly scratch: string,
  ) {}

  /** Makes the three trees (the patch must apply: else the audit cannot start). */
  static async open(db: Db, o: AuditToolOptions): Promise<AuditTools> {
    const runner = await pythonRunner(o.python, o.sandbox, {passEnv: o.passEnv});
    const scratch = makeTempDir('audit');
    try {
      const patchFile = join(scratch, 'agent.diff');
      writeFileSync(patchFile, o.patch.endsWith('\n') ? o.patch : `${o.patch}\n`);
      const ws = await prepareWorkspace({kind: 'patch', repo: o.buggyDir, patch: patchFile, copy: true}, runner);
      const work = join(scratch, 'work');
      cpSync(ws.buggy, work, {recursive: true});
      return new AuditTools(db, o, runner, ws, work, scratch);
    } catch (error) {
      forget(scratch);
      throw error;
    }
  }

  close(): void {
    this.ws.cleanup();
    forget(this.scratch);
  }

  /** A path inside the work tree, or why not (absolute, `..`, a symlink out of it). */
  private inside(path: string): {ok: string} | {error: string} {
    if (typeof path !== 'string' || !path.trim()) return {error: 'path must be a non-empty string'};
    const full = resolve(this.work, path);
    if (full !== this.work && !full.startsWith(this.work + sep)) return {error: `refused: ${path} is outside the audit's tree (paths are relative to it)`};
    // a symlink in the tree must not lead out of it
    let probe = full;
    while (!existsSync(probe) && probe !== this.work) probe = dirname(probe);
    const real = realpathSync(probe);
    const root = realpathSync(this.work);
    if (real !== root && !real.startsWith(root + sep)) return {error: `refused: ${path} leads outside the audit's tree`};
    return {ok: full};
  }

  readFile(path: string): {content: string; truncated: boolean} | {error: string} {
    const p = this.inside(path);
    if ('error' in p) return p;
    if (!existsSync(p.ok) || !statSync(p.ok).isFile()) return {error: `no file ${path}`};
    const text = readFileSync(p.ok, 'utf8');
    return {content: text.slice(0, this.o.maxOutput), truncated: text.length > this.o.maxOutput};
  }

  writeFile(path: string, content: string): {written: string; bytes: number} | {error: string} {
    if (typeof content !== 'string') return {error: 'content must be a string'};
    const p = this.inside(path);
    if ('error' in p) return p;
    mkdirSync(dirname(p.ok), {recursive: true});
    writeFileSync(p.ok, content);
    return {written: relative(this.work, p.ok), bytes: Buffer.byteLength(content)};
  }

  /** A program run in the work tree, confined (only the tree writable), as an argument array:
   * started by the sandbox's Python, which is what the sandbox knows how to start. */
  private inWork(argv: string[], timeoutMs: number, readable: string[] = []) {
    return runPython(this.runner, ['-c', 'import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)', ...argv], {cwd: this.work, timeoutMs, writable: [this.work], readable});
  }

  /** A bash command in the work tree, confined, cut at the time limit, its output capped. */
  async bash(command: string): Promise<RunOutcome | {error: string}> {
    if (typeof command !== 'string' || !command.trim()) return {error: 'command must be a non-empty string'};
    const r = await this.inWork(['bash', '-c', command], this.o.timeoutS * 1000);
    return {exit_code: r.exitCode, outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : 'failed', stdout: tailOf(r.stdout, this.o.maxOutput), stderr: tailOf(r.stderr, this.o.maxOutput)};
  }

  /** The agent's patch applied to the work tree (`revert_patch` puts the buggy files back). */
  async applyPatch(): Promise<{applied: boolean; detail: string}> {
    const file = join(this.scratch, 'agent.diff');
    const r = await this.inWork(['patch', '-p1', '--forward', '--batch', '-i', file], 60_000, [this.scratch]);
    return {applied: r.exitCode === 0, detail: tailOf(`${r.stdout}${r.stderr}`.trim(), 2000)};
  }

  revertPatch(): {reverted: boolean} {
    // the work tree back to the buggy files (what the model wrote elsewhere stays)
    for (const entry of readdirSync(this.ws.buggy)) cpSync(join(this.ws.buggy, entry), join(this.work, entry), {recursive: true, force: true});
    return {reverted: true};
  }

  /** The pairs diff_execution traced, newest last: their traces hold the call chains. */
  private readonly traced: {pair: number; buggy: number; patched: number}[] = [];

  /**
   * The call chains that reach a function in the tests diff_execution traced (each frame's callers
   * up to the test), and, as a fallback or beside them, the lines of the tree that call it by name.
   */
  callGraph(fn: string): {chains: {side: string; chain: string[]}[]; callers: {file: string; line: number; text: string}[]; how: string} | {error: string} {
    if (typeof fn !== 'string' || !/^[A-Za-z_][\w.]*$/.test(fn)) return {error: 'function must be a Python name (dotted names allowed)'};
    const name = fn.split('.').at(-1)!;
    const chains: {side: string; chain: string[]}[] = [];
    const seenChains = new Set<string>();
    for (const t of [...this.traced].reverse()) {
      for (const [side, id] of [['buggy', t.buggy], ['patched', t.patched]] as const) {
        const trace = new StoredTrace(this.db, id);
        for (let fid = 1; fid < 200_000 && chains.length < 10; fid++) {
          const f = trace.frame(fid);
          if (!f) break;
          if (f.fn.replace(/^.*<locals>\./, '').split('.').at(-1) !== name) continue;
          const chain: string[] = [];
          for (let at: typeof f | undefined = f; at; at = at.parent === null ? undefined : trace.frame(at.parent)) chain.push(`${at.fn} (${at.file}${at.callLine ? `, called at line ${at.callLine}` : ''})`);
          const key = chain.join(' < ');
          if (!seenChains.has(key)) {
            seenChains.add(key);
            chains.push({side, chain});
          }
        }
      }
    }
    const callers: {file: string; line: number; text: string}[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, {withFileTypes: true})) {
        if (e.name.startsWith('.') || e.name === '__pycache__') continue;
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.name.endsWith('.py') && callers.length < 50) {
          readFileSync(full, 'utf8').split('\n').forEach((l, i) => {
            if (callers.length < 50 && new RegExp(`(?<![\\w])${name}\\s*\\(`).test(l) && !new RegExp(`^\\s*def\\s+${name}\\b`).test(l)) callers.push({file: relative(this.work, full), line: i + 1, text: l.trim().slice(0, 200)});
          });
        }
      }
    };
    walk(this.work);
    return {
      chains,
      callers,
      how: chains.length
        ? 'chains: from the traces of the tests diff_execution ran (innermost first); callers: every line of the tree that calls it by name'
        : this.traced.length
          ? 'no traced test reached it: callers are every line of the tree that calls it by name (static)'
          : 'no test traced yet (diff_execution traces them): callers are every line of the tree that calls it by name (static)',
    };
  }

  /**
   * The model's test, run before and after the patch (the buggy and patched trees), and — beyond
   * the paper — where behaviour first differs between the two runs: the delta point from our
   * tracer (function, line, differing values), null when the traces agree or cannot be compared.
   */
  async diffExecution(testCode: string): Promise<{before: RunOutcome; after: RunOutcome; delta: Record<string, unknown> | null; test: string} | {error: string}> {
    if (typeof testCode !== 'string' || !/^\s*(?:async\s+)?def\s+test\w*\s*\(/m.test(testCode)) return {error: 'test_code must hold a pytest test function (def test_…)'};
    const fn = /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/m.exec(testCode)![1]!;
    for (const tree of [this.ws.buggy, this.ws.patched]) writeFileSync(join(tree, AUDIT_TEST), testCode);
    const nodeid = `${AUDIT_TEST}::${fn}`;
    const run = async (tree: string): Promise<RunOutcome> => {
      const r = await runPython(this.runner, ['-m', 'pytest', '-x', '-q', '-p', 'no:cacheprovider', nodeid], {cwd: tree, timeoutMs: this.o.timeoutS * 1000, writable: [tree]});
      return {exit_code: r.exitCode, outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'passed' : r.exitCode === 1 ? 'failed' : 'error', stdout: tailOf(r.stdout, this.o.maxOutput), stderr: tailOf(r.stderr, this.o.maxOutput)};
    };
    const [before, after] = await Promise.all([run(this.ws.buggy), run(this.ws.patched)]);
    let delta: Record<string, unknown> | null = null;
    if (before.outcome !== 'timeout' && after.outcome !== 'timeout') {
      try {
        const r = await tracePair(this.db, {kind: 'dirs', buggyDir: this.ws.buggy, patchedDir: this.ws.patched}, {python: this.o.python, test: nodeid, instance: this.o.instance, label: 'audit', sandbox: this.o.sandbox, passEnv: this.o.passEnv, pytestPlugins: false, limits: {timeoutS: this.o.timeoutS}});
        this.traced.push({pair: r.pair, buggy: r.buggy.trace, patched: r.patched.trace});
        const d = r.delta;
        delta = d.status === 'found' ? {pair: r.pair, kind: d.kind, function: d.function, file: d.file, line: d.line, timing: d.timing, variables: (d as {variables?: unknown}).variables ?? null} : d.status === 'none' ? null : {pair: r.pair, status: d.status, reason: d.reason};
      } catch (error) {
        delta = {status: 'not traced', reason: (error as Error).message};
      }
    }
    return {before, after, delta, test: nodeid};
  }
}
