/**
 * The delta point read from the stored traces alone (what questions build asks) is the stepper's
 * — the same file, line, execution, frame, inputs and locals — on real pairs of the demo projects:
 * a value delta, outcome deltas, a nested function, a delta at a call.
 */
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {demoProjects} from '../../source/services/demo.js';
import {deltaPointOf, openStepper} from '../../source/services/stepper.js';
import {tracePair} from '../../source/services/tracing.js';
import {freshDb} from '../helpers/db.js';

describe('the delta point without the stepper', () => {
  it("equals the stepper model's on every demo project pair, both sides", async () => {
    const {db} = freshDb();
    let compared = 0;
    for (const project of demoProjects()) {
      for (const patch of project.patches.filter(p => p.name !== 'agent-ineffective')) {
        const r = await tracePair(
          db,
          {kind: 'patch', repo: join(project.dir, 'repo'), patch: patch.file, copy: true},
          {
            python: process.env.DELTALENS_PYTHON ?? 'python3',
            pytestPlugins: false,
            sandbox: 'prefer',
            test: project.test,
            instance: project.instance,
          },
        );
        const model = openStepper(db, r.pair);
        if ('error' in model) throw new Error(model.error);
        for (const which of ['b', 'p'] as const) {
          const expected = model.deltaPoint(which);
          expect(deltaPointOf(db, r.pair, which), `${project.name}/${patch.name}/${which}`).toEqual(expected);
          if (expected) compared++;
        }
      }
    }
    expect(compared).toBeGreaterThanOrEqual(12);
  }, 240_000);
});
