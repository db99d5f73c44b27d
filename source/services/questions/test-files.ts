/** The test file in a throw-away tree: read (never through a link), the fix's version written in, a candidate substituted. */
import {lstatSync, readdirSync} from 'node:fs';
import {basename, dirname, join} from 'node:path';
import {readTextInTree, removeInTree, writeInTree} from '../tree-files.js';

/** A test given apart (--pbt, or written by the model) joins both trees under this name. */
export const PBT_FILE = 'test_deltalens_pbt.py';

/** A test file is read at most this large (a test module is never gigabytes; a run could leave one). */
const MAX_TEST_BYTES = 16 * 1024 * 1024;

/** A test file of a tree untrusted code ran in: null when it is not there; refused (TreeFileError)
 * when it is a link, not a regular file, or too large. */
export function readTestFile(tree: string, file: string): string | null {
  return readTextInTree(tree, file, MAX_TEST_BYTES);
}

/**
 * The test file as the fix has it, in a tree that may have another version (the buggy tree, an
 * agent's): a fix that adds the test, or adds it to a test file that was there, is run with its
 * own test on every side — as SWE-bench applies the test patch after the model's patch. Written
 * never through a link; nothing is written when the tree has that text already.
 */
export function writeFixedTestFile(tree: string, fixedText: string, file: string): void {
  if (readTestFile(tree, file) !== fixedText) writeTest(tree, file, fixedText);
}

/**
 * The test file rewritten (a candidate substituted, or the original back), with its cached
 * bytecode removed: pytest and CPython check a cache by the source's mtime (whole seconds) and
 * size, and two candidates of one length written within a second would share a stale one.
 */
export function writeTest(tree: string, file: string, text: string): void {
  writeInTree(tree, file, text);
  const cache = join(dirname(file), '__pycache__');
  const stem = basename(file, '.py');
  let cached: string[] = [];
  try {
    if (lstatSync(join(tree, cache)).isDirectory()) cached = readdirSync(join(tree, cache));
  } catch {
    cached = [];
  }
  for (const f of cached) if (f.startsWith(`${stem}.`) && f.endsWith('.pyc')) removeInTree(tree, join(cache, f));
}
