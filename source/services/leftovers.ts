/**
 * Nothing a run makes outlives it. Every throw-away folder and every trace still being written
 * is recorded in a small file (TMPDIR/deltalens-runs-UID/PID-START.json) while it exists:
 *
 * - a normal end, an error, SIGINT or SIGTERM: the folders are removed and the record with them
 *   (the exit hook removes them too when the process exits early);
 * - SIGKILL, a power cut: the record stays; the next deltalens to start finds records whose
 *   process is gone, removes their folders and deletes their half-written traces from the
 *   database they name.
 */
import {execa} from 'execa';
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {basename, dirname, join, resolve} from 'node:path';

/** Every throw-away folder deltalens makes is TMPDIR/deltalens-…; nothing else is ever swept. */
const TEMP_PREFIX = 'deltalens-';

/** A throw-away folder, recorded so that it is removed even if this process is killed. */
export function makeTempDir(kind: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${kind}-`));
  remember(dir);
  return dir;
}

interface RunRecord {
  pid: number;
  /** the process's start time (clock ticks after boot), so a reused pid is not mistaken for it */
  start: string | null;
  folders: string[];
  traces: ({db: string} & TraceRows)[];
}

/** Rows of unfinished traces: the traces, and the test and instance rows their run created. */
interface TraceRows {
  traces: number[];
  tests?: number[];
  instances?: string[];
}

const empty = (r: TraceRows) => !r.traces.length && !r.tests?.length && !r.instances?.length;

function recordsDir(): string {
  return join(tmpdir(), `deltalens-runs-${process.getuid?.() ?? 'user'}`);
}

/** Fields of /proc/PID/stat after the parenthesised command name (which may hold spaces). */
function stat(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Field 22: the start time in clock ticks after boot. */
function startTime(pid: number): string | null {
  return stat(pid)?.[19] ?? null;
}

/** Whether a process of this pid is running (a zombie is not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const fields = stat(pid);
  return !(fields && (fields[0] === 'Z' || fields[0] === 'X'));
}

/** This process as another can recognise it later: its pid and start time. */
export function selfIdentity(): {pid: number; start: string | null} {
  return {pid: process.pid, start: startTime(process.pid)};
}

/** Whether the process is still running and is the one recorded (a reused pid is not). */
export function alive(r: {pid: number; start: string | null}): boolean {
  try {
    process.kill(r.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const fields = stat(r.pid);
  if (fields && (fields[0] === 'Z' || fields[0] === 'X')) return false; // killed, not yet reaped
  const now = fields?.[19] ?? null;
  return r.start === null || now === null || now === r.start;
}

const mine: RunRecord = {pid: process.pid, start: null, folders: [], traces: []};
let file: string | null = null;

function save(): void {
  mine.traces = mine.traces.filter(t => !empty(t));
  if (!mine.folders.length && !mine.traces.length) {
    if (file) {
      rmSync(file, {force: true});
      try {
        rmdirSync(recordsDir()); // only when no other run has a record there
      } catch {
        /* not empty, or gone */
      }
    }
    file = null;
    return;
  }
  if (!file) {
    mine.start ??= startTime(process.pid);
    file = join(recordsDir(), `${process.pid}-${mine.start ?? 'x'}.json`);
    // once per process: the record comes and goes with the folders, the hook stays
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', removeMine);
    }
  }
  writeRecord(file);
}

/** Another run removes the records folder when it leaves it empty — possibly between our
 * mkdir and our write: the folder is made again and the write retried. */
let exitHooked = false;

function writeRecord(path: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(recordsDir(), {recursive: true, mode: 0o700});
      writeFileSync(path, JSON.stringify(mine));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw error;
    }
  }
}

/** A throw-away folder this process made; removed by `forget` or when the process exits. */
export function remember(folder: string): void {
  mine.folders.push(resolve(folder));
  save();
}

/** Removes a folder `remember`ed before. */
export function forget(folder: string): void {
  const full = resolve(folder);
  rmSync(full, {recursive: true, force: true});
  release(full);
}

const REMOVE_SCRIPT = `require('node:fs').rmSync(process.argv[1], {recursive: true, force: true});`;

/**
 * Removes a folder `remember`ed before, each of its entries in a Node process of its own, while
 * this one goes on: a removal is file-system calls one after another (the two copied sympy
 * trees of a traced pair took 0.6 s of the main thread). The folder stays recorded until it is
 * gone, so an exit before then still removes it.
 */
export async function forgetSoon(folder: string): Promise<void> {
  const full = resolve(folder);
  let entries: string[] = [];
  try {
    entries = readdirSync(full).map(entry => join(full, entry));
  } catch {
    /* gone already */
  }
  await Promise.all(entries.map(entry => execa(process.execPath, ['-e', REMOVE_SCRIPT, entry], {reject: false})));
  forget(full); // whatever a child left, and the folder itself
}

/** Stops tracking a folder without removing it (--keep). */
export function release(folder: string): void {
  const full = resolve(folder);
  mine.folders = mine.folders.filter(f => f !== full);
  save();
}

/** Rows being written into the store at `db`; forgotten once the run that writes them ends. */
export function rememberTrace(db: string, rows: TraceRows): void {
  let entry = mine.traces.find(t => t.db === db);
  if (!entry) mine.traces.push((entry = {db, traces: [], tests: [], instances: []}));
  entry.traces.push(...rows.traces);
  entry.tests!.push(...(rows.tests ?? []));
  entry.instances!.push(...(rows.instances ?? []));
  save();
}

export function forgetTraces(db: string, rows: TraceRows): void {
  const entry = mine.traces.find(t => t.db === db);
  if (entry) {
    entry.traces = entry.traces.filter(x => !rows.traces.includes(x));
    entry.tests = entry.tests?.filter(x => !rows.tests?.includes(x));
    entry.instances = entry.instances?.filter(x => !rows.instances?.includes(x));
  }
  save();
}

/** Synchronous, for the exit hook: the folders go; half-written traces are left to the caller
 * (a signal handler discards them) or to the next start. */
function removeMine(): void {
  for (const folder of mine.folders) rmSync(folder, {recursive: true, force: true});
  mine.folders = [];
  if (!mine.traces.length && file) rmSync(file, {force: true});
  else if (file) writeRecord(file);
}

/** Our temporary folders only: never delete anything else, whatever a record says. */
function ours(folder: string): boolean {
  const full = resolve(folder);
  return dirname(full) === resolve(tmpdir()) && basename(full).startsWith(TEMP_PREFIX);
}

/** Whether any run left a record (one readdir; the common answer is no). */
export function hasRecords(): boolean {
  try {
    return readdirSync(recordsDir()).some(name => name.endsWith('.json'));
  } catch {
    return false;
  }
}

interface Swept {
  folders: string[];
  traces: number;
}

/**
 * What dead runs left: their folders are removed, their unfinished traces deleted through
 * `discard(db, ids)` (which opens the store they name). Cheap when there is nothing: one
 * readdir.
 */
export function sweepDeadRuns(discard: (db: string, rows: TraceRows) => number): Swept {
  const swept: Swept = {folders: [], traces: 0};
  const dir = recordsDir();
  if (!existsSync(dir)) return swept;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    let r: RunRecord;
    try {
      r = JSON.parse(readFileSync(path, 'utf8')) as RunRecord;
    } catch {
      rmSync(path, {force: true});
      continue;
    }
    if (r.pid === process.pid || alive(r)) continue;
    for (const folder of r.folders ?? []) {
      if (!ours(folder) || !existsSync(folder)) continue;
      rmSync(folder, {recursive: true, force: true});
      swept.folders.push(folder);
    }
    let pending = false;
    for (const t of r.traces ?? []) {
      if (empty(t) || !existsSync(t.db)) continue;
      try {
        swept.traces += discard(t.db, t);
      } catch {
        pending = true; // the store is busy or unreadable now: try again next time
      }
    }
    if (pending) writeFileSync(path, JSON.stringify({...r, folders: []}));
    else rmSync(path, {force: true});
  }
  try {
    rmdirSync(dir); // only when no run has a record left
  } catch {
    /* not empty */
  }
  return swept;
}
