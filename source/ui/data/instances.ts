/** The explorer's reader of instances: the record and everything the store holds about one. */
import type {Db} from '../../store/db.js';
import {getInstance, type InstanceDetail} from '../../store/instances.js';
import {listExclusions, listQuestions, type ExclusionRow} from '../../store/questions.js';
import {latestDelta, listPairs} from '../../store/traces.js';
import {listTrajectories} from '../../store/trajectories.js';

/** An instance's record and what the store holds about it. */
export interface InstanceData {
  detail: InstanceDetail;
  runs: {id: number; agent: string; resolved: boolean | null; steps: number; format: string}[];
  pairs: {id: number; label: string | null; test: string; delta: string}[];
  questions: {id: string; type: string; agent: string | null}[];
  /** what questions build did not build, and why (the latest attempt of each) */
  exclusions: ExclusionRow[];
}

export interface InstancesReader {
  /** an instance: its record, its runs, traced pairs and questions */
  instance(id: string): InstanceData | null;
}

export function instancesReader(db: Db): InstancesReader {
  return {
    instance: id => {
      const detail = getInstance(db, id);
      if (!detail) return null;
      return {
        detail,
        runs: listTrajectories(db, {instance: id}).map(r => ({
          id: r.id,
          agent: r.agent,
          resolved: r.resolved,
          steps: r.steps,
          format: r.format,
        })),
        pairs: listPairs(db, id).map(p => {
          const d = latestDelta(db, p.id);
          const delta = !d
            ? 'no delta'
            : d.status === 'none'
              ? '∅'
              : d.status === 'incomplete'
                ? 'incomplete'
                : `${d.kind} in ${d.function}`;
          return {id: p.id, label: p.label, test: p.test, delta};
        }),
        questions: listQuestions(db, {instance: id}).map(q => ({id: q.id, type: q.type, agent: q.agent})),
        exclusions: listExclusions(db, id),
      };
    },
  };
}
