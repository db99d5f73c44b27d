/**
 * `deltalens instances import FILE`: SWE-bench dataset rows and the harness's predictions, in one
 * transaction per file — every row is checked before anything is written, and a bad row names
 * its number and field with nothing of the file kept.
 */
import {
  instanceRow,
  predictionRow,
  RecordError,
  rowKind,
  rowsOf,
  type InstanceRow,
  type PredictionRow,
} from '../core/instances/record.js';
import {writeTx, type Db} from '../store/db.js';
import {getInstance, saveInstanceRow} from '../store/instances.js';
import {storePrediction} from './importer.js';
import {readUtf8File} from './text-file.js';

export {RecordError};

interface InstancesReport {
  file: string;
  instances: {id: string; status: 'added' | 'updated' | 'unchanged'}[];
  predictions: {instance: string; model: string; trajectory: number; status: 'added' | 'already imported'}[];
  /** predictions for instances without a record in the store (kept; trace --instance needs the record) */
  withoutRecord: string[];
}

export function importInstances(db: Db, file: string): InstancesReport {
  const {text} = readUtf8File(file);
  const rows = rowsOf(text);
  if (!rows.length) throw new RecordError('no rows');
  const instances: InstanceRow[] = [];
  const predictions: {row: PredictionRow; index: number}[] = [];
  rows.forEach((value, index) => {
    const kind = rowKind(value);
    if (kind === 'instance') instances.push(instanceRow(value, index));
    else if (kind === 'prediction') predictions.push({row: predictionRow(value, index), index});
    else
      throw new RecordError(
        `row ${index + 1}: neither a SWE-bench instance (instance_id, base_commit, FAIL_TO_PASS, …) nor a prediction (instance_id, model_name_or_path, model_patch)`,
      );
  });
  const seen = new Map<string, number>();
  for (const [i, row] of instances.entries()) {
    const before = seen.get(row.id);
    if (before !== undefined)
      throw new RecordError(`row ${i + 1} (${row.id}): instance_id: the file has it twice (row ${before + 1} too)`);
    seen.set(row.id, i);
  }
  return writeTx(db, () => {
    const report: InstancesReport = {file, instances: [], predictions: [], withoutRecord: []};
    for (const row of instances) report.instances.push({id: row.id, status: saveInstanceRow(db, row, file)});
    for (const {row, index} of predictions) {
      if (!getInstance(db, row.instance)?.baseCommit && !report.withoutRecord.includes(row.instance))
        report.withoutRecord.push(row.instance);
      const stored = storePrediction(db, row, {path: file, locator: `row ${index + 1}`});
      report.predictions.push(
        'id' in stored
          ? {instance: row.instance, model: row.model, trajectory: stored.id, status: 'added'}
          : {instance: row.instance, model: row.model, trajectory: stored.existing, status: 'already imported'},
      );
    }
    return report;
  });
}
