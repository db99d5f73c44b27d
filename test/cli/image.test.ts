/**
 * `--image`: an image's file system as the runs' system, under bubblewrap — its interpreter
 * (not the host's), its repository at /testbed. The image is built in the test from the host's
 * own Python (test/helpers/image.ts: no network), given as a folder, as a tar (what `docker
 * export` writes) and, where podman is installed, as an image podman mounts.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openDb} from '../../source/store/db.js';
import {ROOT, tempDir} from '../helpers/files.js';
import {hasBwrap} from '../helpers/hostile.js';
import {makeImage, systemPython} from '../helpers/image.js';
import {SHAPES_GOLD} from '../helpers/shapes.js';

const BIN = join(ROOT, 'bin', 'deltalens.js');
const PY = systemPython();
const SKIP = !hasBwrap() ? 'bwrap is not installed' : typeof PY === 'string' ? PY : null;
if (SKIP) console.warn(`--image tests skipped: ${SKIP}`);
const PODMAN = spawnSync('podman', ['--version']).status === 0 && process.getuid?.() === 0;
const TAG = `localhost/deltalens-test-image:${process.pid}`;

let image = '';
let cwd = '';
let cache = '';

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1', XDG_CACHE_HOME: cache},
  });
  return {code: r.status, stdout: r.stdout, stderr: r.stderr};
}

beforeAll(() => {
  if (SKIP) return;
  cwd = tempDir();
  cache = join(cwd, 'cache');
  mkdirSync(cache);
  image = join(cwd, 'rootfs');
  makeImage(image, join(ROOT, 'tracer', 'tests', 'fixtures', 'runners'));
  writeFileSync(join(cwd, 'gold.diff'), SHAPES_GOLD);
});

afterAll(() => {
  if (PODMAN) spawnSync('podman', ['rmi', '-f', TAG]);
});

describe.skipIf(SKIP !== null)('trace --image', () => {
  it("an unpacked image: its interpreter runs the test on its /testbed, confined; the delta is the fix's", () => {
    const r = run([
      'trace',
      '--image',
      image,
      '--patch',
      'gold.diff',
      '--test',
      'test_wrong (shape_tests.test_area.AreaTests)',
      '--runner',
      'django',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d).toMatchObject({status: 'found', function: 'area', sandbox: expect.stringMatching(/^bwrap/)});
    expect([d.buggy_outcome.status, d.patched_outcome.status]).toEqual(['failed', 'passed']);
    // the image's Python (the system one it was built from), whatever python3 deltalens would use
    const db = openDb(join(cwd, 'deltalens.db'), {readonly: true});
    const versions = db.prepare('SELECT DISTINCT python FROM trace').pluck().all();
    db.close();
    const full = execFileSync('/usr/bin/python3', ['-c', 'import platform; print(platform.python_version())'], {
      encoding: 'utf8',
    }).trim();
    expect(versions).toEqual([full]);
    const said = run([
      'trace',
      '--image',
      image,
      '--patch',
      'gold.diff',
      '--test',
      'test_square (shape_tests.test_area.AreaTests)',
      '--runner',
      'django',
    ]);
    expect(said.stderr).toContain(
      `image: the root file system in ${image}; its interpreter /usr/bin/python3; its repository at /testbed`,
    );
    expect(said.stdout).toContain('delta: ∅');
  }, 120_000);

  it("an instance with an image: the record's base is the image's /testbed, no clone needed", () => {
    const record = {
      repo: 'django/django',
      instance_id: 'django__django-90002',
      base_commit: '0123456789abcdef0123456789abcdef01234567',
      patch: SHAPES_GOLD,
      test_patch: '',
      problem_statement: 'area(2, 2) should be 5 in this made-up world',
      FAIL_TO_PASS: JSON.stringify(['test_wrong (shape_tests.test_area.AreaTests)']),
      PASS_TO_PASS: '[]',
    };
    writeFileSync(join(cwd, 'rows.json'), JSON.stringify([record]));
    expect(run(['instances', 'import', 'rows.json']).code).toBe(0);
    const r = run(['trace', '--instance', 'django__django-90002', '--image', image, '--gold', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      runner: 'django',
      status: 'found',
      function: 'area',
      landing: {kind: 'changed function'},
    });
  }, 120_000);

  it('a tar of the image (what docker export writes) is unpacked once into the cache', () => {
    const tar = join(cwd, 'image.tar');
    execFileSync('tar', ['-C', image, '-cf', tar, '.']);
    for (const time of [1, 2]) {
      const r = run([
        'trace',
        '--image',
        tar,
        '--patch',
        'gold.diff',
        '--test',
        'tests/shape_tests/test_area.py::test_rectangle',
        '--runner',
        'function',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('delta: ∅');
      expect(r.stderr).toContain(`image: ${tar}, unpacked in ${join(cache, 'deltalens', 'images')}`);
      void time;
    }
  }, 120_000);

  it.skipIf(!PODMAN)(
    'an image podman knows: its file system mounted, nothing run by a daemon',
    () => {
      execFileSync('tar', ['-C', image, '-cf', join(cwd, 'podman.tar'), '.']);
      execFileSync('podman', ['import', join(cwd, 'podman.tar'), TAG], {stdio: 'ignore'});
      const r = run([
        'trace',
        '--image',
        TAG,
        '--patch',
        'gold.diff',
        '--test',
        'test_wrong (shape_tests.test_area.AreaTests)',
        '--runner',
        'django',
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`image: podman image mount ${TAG}`);
      expect(r.stdout).toContain('delta: outcome difference in area');
    },
    120_000,
  );

  it('what it cannot do is said in one line', () => {
    const bad = run(['trace', '--image', 'localhost/no-such-image:1', '--patch', 'gold.diff', '--test', 'x.py']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(
      /podman has no image localhost\/no-such-image:1|neither podman nor docker is installed|docker create/,
    );
    const open = run(['trace', '--image', image, '--patch', 'gold.diff', '--test', 'x.py', '--no-sandbox']);
    expect([open.code, open.stderr.trim()]).toEqual([
      2,
      "deltalens: --image runs inside the sandbox (the image's file system becomes the run's system): not with --no-sandbox",
    ]);
    const noPython = run([
      'trace',
      '--image',
      image,
      '--python',
      '/opt/none/bin/python',
      '--patch',
      'gold.diff',
      '--test',
      'x.py',
    ]);
    expect(noPython.code).toBe(1);
    expect(noPython.stderr).toContain('cannot run /opt/none/bin/python in the image');
  }, 60_000);
});
