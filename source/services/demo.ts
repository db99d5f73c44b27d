import {createHash} from 'node:crypto';
import {existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {join, relative} from 'node:path';
import {packageRoot} from '../package-root.js';
import {MIGRATIONS_DIR, openDb} from '../store/db.js';
import {importPaths, type ImportReport} from './importer.js';

export const ROOT = packageRoot();
export const SAMPLE_DIR = join(ROOT, 'sample-data');
export const DEMO_DB = join(SAMPLE_DIR, 'demo.db');
const STAMP = `${DEMO_DB}.stamp`;

/**
 * The bundled demo dataset, in import order: the multi-run folder first so that its runs keep
 * their configuration names (the single mini-SWE-agent file is byte-identical to one of them).
 */
export const DEMO_SOURCES = ['trajectories/swe-bench-instances', 'trajectories/mini-swe-agent-multi', 'trajectories'];

/** Changes whenever a sample file, a migration or this list changes, so the demo is rebuilt. */
export function demoFingerprint(): string {
  const hash = createHash('sha256').update(DEMO_SOURCES.join('\n'));
  const files = [...listFiles(join(SAMPLE_DIR, 'trajectories')), ...listFiles(MIGRATIONS_DIR)].sort();
  for (const file of files) hash.update(`${relative(ROOT, file)}\0${statSync(file).size}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

export function demoIsCurrent(): boolean {
  return existsSync(DEMO_DB) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === demoFingerprint();
}

/** Builds into a temporary file and renames it into place, so a crash never leaves half a demo. */
export function buildDemo(onProgress?: (done: number, total: number) => void): ImportReport {
  const temporary = `${DEMO_DB}.building-${process.pid}`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, {force: true});
  const db = openDb(temporary);
  let report: ImportReport;
  try {
    report = importPaths(
      db,
      DEMO_SOURCES.map(source => join(SAMPLE_DIR, source)),
      {format: 'auto', maxBytes: 100 * 1024 * 1024, onProgress: onProgress && ((done, total) => onProgress(done, total))},
    );
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  if (report.failed.length) {
    rmSync(temporary, {force: true});
    throw new Error(`demo build failed: ${report.failed.map(f => `${f.path}: ${f.error}`).join('; ')}`);
  }
  for (const suffix of ['-wal', '-shm']) rmSync(`${DEMO_DB}${suffix}`, {force: true});
  renameSync(temporary, DEMO_DB);
  for (const suffix of ['-wal', '-shm']) rmSync(`${temporary}${suffix}`, {force: true});
  writeFileSync(STAMP, `${demoFingerprint()}\n`);
  return report;
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {withFileTypes: true}).flatMap(entry =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : entry.isFile() ? [join(dir, entry.name)] : [],
  );
}
