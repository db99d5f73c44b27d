import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll} from 'vitest';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SAMPLES = join(ROOT, 'sample-data', 'trajectories');
/** The shared DEV data beside the checkout (present on developer machines and in CI). */
export const SHARED = join(ROOT, '..', 'shared', 'data', 'trajectories');

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true});
});

/** A temporary directory, removed when the test file finishes. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'deltalens-test-'));
  made.push(dir);
  return dir;
}
