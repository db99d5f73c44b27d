import {objectAt, optionalString, requiredString} from './json-fields.js';
import {FormatError} from './model.js';

/** A SWE-bench instance record (HF dataset row): the task a trajectory works on. */
export interface InstanceFields {
  id: string;
  repo: string | null;
  baseCommit: string | null;
  problemStatement: string | null;
  goldPatch: string | null;
  testPatch: string | null;
  failToPass: string | null;
  passToPass: string | null;
  difficulty: string | null;
}

export function instanceRecordFrom(value: unknown, path: string): InstanceFields {
  const record = objectAt(value, path);
  return {
    id: requiredString(record, 'instance_id', path),
    repo: optionalString(record, 'repo', path),
    baseCommit: optionalString(record, 'base_commit', path),
    problemStatement: optionalString(record, 'problem_statement', path),
    goldPatch: optionalString(record, 'patch', path),
    testPatch: optionalString(record, 'test_patch', path),
    failToPass: testList(record['FAIL_TO_PASS'], `${path}.FAIL_TO_PASS`),
    passToPass: testList(record['PASS_TO_PASS'], `${path}.PASS_TO_PASS`),
    difficulty: optionalString(record, 'difficulty', path),
  };
}

/** FAIL_TO_PASS is a JSON-encoded list in the HF dataset and a plain list elsewhere; stored as JSON. */
function testList(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      throw new FormatError('expected a JSON-encoded list of test ids', {path});
    }
  }
  if (!Array.isArray(list) || !list.every(item => typeof item === 'string')) {
    throw new FormatError('expected a list of test ids', {path});
  }
  return JSON.stringify(list);
}
