/**
 * "The pair already traced for these inputs" — what questions build reuses instead of tracing
 * again — in one query: the same instance, test, change and seed, with a delta that was found.
 * The real tracer on the demo ledger project, stored in SQLite.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {PROJECTS_DIR} from '../../source/services/demo.js';
import {tracePair} from '../../source/services/tracing.js';
import {getPair, tracedPairFor} from '../../source/store/traces.js';
import {freshDb} from '../helpers/db.js';

describe('the pair already traced for a change', () => {
  it('is found by instance, test, change and seed; another of any of them finds none; the newest wins', async () => {
    const {db} = freshDb();
    const dir = join(PROJECTS_DIR, 'ledger');
    const test = 'tests/test_account.py::test_small_deposits_keep_every_cent';
    const trace = () =>
      tracePair(
        db,
        {kind: 'patch', repo: join(dir, 'repo'), patch: join(dir, 'patches', 'agent-wrong.diff'), copy: true},
        {
          python: process.env.DELTALENS_PYTHON ?? 'python3',
          pytestPlugins: false,
          sandbox: 'prefer',
          test,
          instance: 'demo__ledger-1',
          seed: 3,
        },
      );
    const first = await trace();
    const pair = getPair(db, first.pair)!;
    const inputs = {instance: 'demo__ledger-1', test, patch: pair.patch!, seed: 3};
    expect(tracedPairFor(db, inputs)).toBe(first.pair);
    expect(tracedPairFor(db, {...inputs, seed: 4})).toBeNull();
    expect(tracedPairFor(db, {...inputs, test: 'tests/test_account.py::test_other'})).toBeNull();
    expect(tracedPairFor(db, {...inputs, patch: `${inputs.patch}\n`})).toBeNull();
    expect(tracedPairFor(db, {...inputs, instance: 'demo__other-1'})).toBeNull();
    const second = await trace();
    expect(tracedPairFor(db, inputs)).toBe(second.pair);
  }, 60_000);
});
