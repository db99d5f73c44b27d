/**
 * How a SWE-bench test id runs, the way the harness runs that repository's tests:
 *
 * - Django (`django/django`): `test_x (module.Class)` through the tree's `tests/runtests.py
 *   --settings=test_sqlite --parallel 1 module.Class.test_x`;
 * - `test_x (module.Class)` elsewhere: plain unittest;
 * - a pytest node id (`tests/test_x.py::test_y`, `…::TestC::test_y[p]`): pytest;
 * - a bare name (`test_issue_17319`, as sympy's records list them): the test function of that
 *   name in a file the test patch touches, called as sympy's `bin/test` calls it (the tree's
 *   file imported as its module, the function called) — which runs on sympy revisions whose
 *   conftest no current pytest loads.
 */

export type RunnerMode = 'pytest' | 'django' | 'unittest' | 'function' | 'script';

export interface TestRun {
  mode: RunnerMode;
  /** what the tracer takes after `--` */
  target: string;
  /** said to the user: how it runs */
  how: string;
}

const UNITTEST_ID = /^(\w+) \(([\w.]+)\)$/;

export class TestIdError extends Error {}

/**
 * `definedIn(name)`: the files of the test patch (in the buggy tree, after the patch) that
 * define `def name(` at module level — the service reads them.
 */
export function testRun(repo: string | null, testId: string, definedIn: (name: string) => string[]): TestRun {
  const id = testId.trim();
  const unittestId = UNITTEST_ID.exec(id);
  if (repo === 'django/django') {
    if (!unittestId && !/^[\w.]+$/.test(id))
      throw new TestIdError(`"${id}" is not a Django test id (test_x (module.Class), or module.Class.test_x)`);
    return {
      mode: 'django',
      target: id,
      how: 'tests/runtests.py --settings=test_sqlite --parallel 1, as SWE-bench runs Django',
    };
  }
  if (unittestId) return {mode: 'unittest', target: id, how: 'unittest'};
  if (id.includes('::') || id.endsWith('.py'))
    return {
      mode: id.endsWith('.py') && !id.includes('::') && !/(^|\/)test_[^/]*\.py$/.test(id) ? 'script' : 'pytest',
      target: id,
      how: id.includes('::') ? 'pytest' : 'a script (its exit code the verdict)',
    };
  if (/^test\w*$/.test(id)) {
    const files = definedIn(id);
    if (!files.length) throw new TestIdError(`no file the test patch touches defines ${id} (give --test FILE::${id})`);
    if (files.length > 1)
      throw new TestIdError(
        `${id} is defined in ${files.length} files the test patch touches (${files.join(', ')}): give --test FILE::${id}`,
      );
    return {
      mode: 'function',
      target: `${files[0]}::${id}`,
      how: `${files[0]}'s ${id} called as sympy's bin/test calls it`,
    };
  }
  throw new TestIdError(
    `"${id}" is not a test id deltalens can run (a pytest node id, "test_x (module.Class)", or a test function's name)`,
  );
}
