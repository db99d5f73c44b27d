import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll} from 'vitest';

export {ROOT, SAMPLES, SHARED} from './paths.js';

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
