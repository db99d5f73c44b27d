/**
 * What the explorer reads and does, bound to one store connection: a reader per domain (the
 * same store queries and services the CLI uses) and one effects object, the only part that
 * writes, runs or opens anything — called by the command runner (ui/intents.ts), never by a
 * screen's view.
 */
import type {Db} from '../../store/db.js';
import {auditsReader, type AuditsReader} from './audits.js';
import {explorerEffects, type EffectOptions, type ExplorerEffects} from './effects.js';
import {instancesReader, type InstancesReader} from './instances.js';
import {questionsReader, ReportCache, type QuestionsReader} from './questions.js';
import {runsReader, type RunsReader} from './runs.js';
import {tracesReader, type TracesReader} from './traces.js';

export interface ExplorerData {
  /** the store's name, for the header */
  label: string;
  /** $DELTALENS_QA_MODEL, the model r asks unless another is chosen */
  qaModel: string | null;
  runs: RunsReader;
  traces: TracesReader;
  questions: QuestionsReader;
  audits: AuditsReader;
  instances: InstancesReader;
  effects: ExplorerEffects;
}

export function storeData(db: Db, label: string, options: EffectOptions = {}): ExplorerData {
  const reports = new ReportCache(db);
  return {
    label,
    qaModel: process.env.DELTALENS_QA_MODEL || null,
    runs: runsReader(db),
    traces: tracesReader(db),
    questions: questionsReader(db, reports),
    audits: auditsReader(db),
    instances: instancesReader(db),
    effects: explorerEffects(db, reports, options),
  };
}
