/**
 * SWE-bench records as the `datasets` library writes them, and the harness's predictions.
 *
 * An instance row: repo, instance_id, base_commit, patch (the gold fix), test_patch,
 * problem_statement, hints_text, version, environment_setup_commit, created_at, and
 * FAIL_TO_PASS / PASS_TO_PASS — JSON-encoded lists of test ids inside the row (plain lists are
 * taken too). Every field is kept, the ones we do not know as well (the row as given).
 *
 * A prediction row: instance_id, model_name_or_path, model_patch — an agent's patch, stored as a
 * run without steps.
 *
 * Checks name the row and the field: `row 3 (sympy__sympy-20590): FAIL_TO_PASS: …`.
 */

import {isObject, typeName, type JsonObject} from '../trajectory/json-fields.js';

export class RecordError extends Error {}

export interface InstanceRow {
  id: string;
  repo: string;
  baseCommit: string;
  goldPatch: string;
  testPatch: string;
  problemStatement: string;
  hintsText: string | null;
  version: string | null;
  environmentSetupCommit: string | null;
  createdAt: string | null;
  failToPass: string[];
  passToPass: string[];
  /** the row as given (every field, ours and others) */
  record: JsonObject;
}

export interface PredictionRow {
  instance: string;
  model: string;
  patch: string;
  record: JsonObject;
}

export type RowKind = 'instance' | 'prediction';

/** What a row is, from its fields; null when it is neither. */
export function rowKind(value: unknown): RowKind | null {
  if (!isObject(value)) return null;
  if ('model_patch' in value || 'model_name_or_path' in value) return 'prediction';
  if ('instance_id' in value && ('base_commit' in value || 'FAIL_TO_PASS' in value || 'test_patch' in value))
    return 'instance';
  return null;
}

const COMMIT = /^[0-9a-f]{7,40}$/;
const REPO = /^[\w.-]+\/[\w.-]+$/;

function where(index: number, row: JsonObject): string {
  const id = typeof row['instance_id'] === 'string' ? ` (${row['instance_id']})` : '';
  return `row ${index + 1}${id}`;
}

function text(
  row: JsonObject,
  key: string,
  at: string,
  o: {required: boolean; pattern?: RegExp; what?: string},
): string | null {
  const value = row[key];
  if (value === undefined || value === null) {
    if (o.required) throw new RecordError(`${at}: ${key}: required, missing`);
    return null;
  }
  if (typeof value !== 'string') throw new RecordError(`${at}: ${key}: expected a string, found ${typeName(value)}`);
  if (o.pattern && !o.pattern.test(value))
    throw new RecordError(`${at}: ${key}: "${value.slice(0, 60)}" is not ${o.what}`);
  return value;
}

/** FAIL_TO_PASS / PASS_TO_PASS: a JSON-encoded list of test ids (the dataset's form) or a list. */
function tests(row: JsonObject, key: string, at: string, required: boolean): string[] {
  const value = row[key];
  if (value === undefined || value === null) {
    if (required) throw new RecordError(`${at}: ${key}: required, missing`);
    return [];
  }
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      throw new RecordError(`${at}: ${key}: expected a JSON-encoded list of test ids, found text that is not JSON`);
    }
  }
  if (!Array.isArray(list))
    throw new RecordError(`${at}: ${key}: expected a list of test ids, found ${typeName(list)}`);
  const bad = list.findIndex(item => typeof item !== 'string' || !item.trim());
  if (bad >= 0) throw new RecordError(`${at}: ${key}[${bad}]: expected a test id, found ${typeName(list[bad])}`);
  return list as string[];
}

export function instanceRow(value: unknown, index: number): InstanceRow {
  if (!isObject(value)) throw new RecordError(`row ${index + 1}: expected an object, found ${typeName(value)}`);
  const at = where(index, value);
  const version = value['version'];
  if (version !== undefined && version !== null && typeof version !== 'string' && typeof version !== 'number') {
    throw new RecordError(`${at}: version: expected a string, found ${typeName(version)}`);
  }
  // checked in the dataset's field order, so the first problem said is the first in the row
  const id = text(value, 'instance_id', at, {required: true, pattern: /^\S+$/, what: 'an instance id (no spaces)'})!;
  const repo = text(value, 'repo', at, {required: true, pattern: REPO, what: 'owner/name'})!;
  const baseCommit = text(value, 'base_commit', at, {
    required: true,
    pattern: COMMIT,
    what: 'a commit (7–40 hex digits)',
  })!;
  const goldPatch = text(value, 'patch', at, {required: true})!;
  const testPatch = text(value, 'test_patch', at, {required: true})!;
  const problemStatement = text(value, 'problem_statement', at, {required: true})!;
  const hintsText = text(value, 'hints_text', at, {required: false});
  const createdAt = text(value, 'created_at', at, {required: false});
  const environmentSetupCommit = text(value, 'environment_setup_commit', at, {
    required: false,
    pattern: COMMIT,
    what: 'a commit (7–40 hex digits)',
  });
  const failToPass = tests(value, 'FAIL_TO_PASS', at, true);
  if (!failToPass.length)
    throw new RecordError(`${at}: FAIL_TO_PASS: empty (an instance has at least one test that fails before the fix)`);
  const passToPass = tests(value, 'PASS_TO_PASS', at, false);
  return {
    id,
    repo,
    baseCommit,
    goldPatch,
    testPatch,
    problemStatement,
    hintsText,
    version: version === undefined || version === null ? null : String(version),
    environmentSetupCommit,
    createdAt,
    failToPass,
    passToPass,
    record: value,
  };
}

export function predictionRow(value: unknown, index: number): PredictionRow {
  if (!isObject(value)) throw new RecordError(`row ${index + 1}: expected an object, found ${typeName(value)}`);
  const at = where(index, value);
  const patch = value['model_patch'];
  // the harness writes null or "" for a run that produced no patch
  if (patch !== undefined && patch !== null && typeof patch !== 'string')
    throw new RecordError(`${at}: model_patch: expected a string, found ${typeName(patch)}`);
  return {
    instance: text(value, 'instance_id', at, {required: true, pattern: /^\S+$/, what: 'an instance id (no spaces)'})!,
    model: text(value, 'model_name_or_path', at, {required: true})!,
    patch: typeof patch === 'string' ? patch : '',
    record: value,
  };
}

/**
 * The rows of a file's text: a JSON array, one JSON object (a single row), an object of rows
 * keyed by instance id (predictions are often written so), or JSON lines.
 */
export function rowsOf(textOfFile: string): unknown[] {
  const trimmed = textOfFile.trim();
  if (!trimmed) throw new RecordError('the file is empty');
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && !trimmed.includes('\n{'))) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch (error) {
      if (trimmed.startsWith('[')) throw new RecordError(`not JSON: ${(error as Error).message}`);
      doc = undefined;
    }
    if (Array.isArray(doc)) return doc;
    if (isObject(doc)) {
      if (rowKind(doc)) return [doc];
      const values = Object.entries(doc);
      if (values.length && values.every(([, v]) => isObject(v)))
        return values.map(([id, v]) => ({instance_id: id, ...(v as JsonObject)}));
      throw new RecordError('a JSON object that is neither a row nor rows keyed by instance id');
    }
  }
  const out: unknown[] = [];
  for (const [i, line] of textOfFile.split('\n').entries()) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch (error) {
      throw new RecordError(`line ${i + 1}: not JSON: ${(error as Error).message}`);
    }
  }
  return out;
}

/** The files a unified diff writes (its `+++ b/…` headers). */
export function patchFiles(patch: string): string[] {
  const out: string[] = [];
  for (const line of patch.split('\n')) {
    const header = /^\+\+\+ b\/(.+?)\s*$/.exec(line);
    if (header && !out.includes(header[1]!)) out.push(header[1]!);
  }
  return out;
}
