import {isObject} from './json-fields.js';

/** What a parsed JSON document (or the first line of a JSONL file) is. */
export type DocumentKind =
  | 'mini-swe-agent'
  | 'swe-agent'
  | 'openhands'
  | 'jsonl'
  | 'swe-bench-instance'
  | 'resolution' // harness summary, per-instance report, run results: resolved status only
  | 'explainbench'
  | 'unknown';

export function detectDocument(value: unknown): DocumentKind {
  if (Array.isArray(value)) {
    const first = value.find(item => isObject(item) || Array.isArray(item));
    const event = Array.isArray(first) ? first[0] : first;
    if (isObject(event) && ('action' in event || 'observation' in event) && ('source' in event || 'id' in event)) {
      return 'openhands';
    }
    if (value.length === 0) return 'unknown';
    return 'unknown';
  }
  if (!isObject(value)) return 'unknown';
  if (typeof value['trajectory_format'] === 'string' && value['trajectory_format'].startsWith('mini-swe-agent')) {
    return 'mini-swe-agent';
  }
  if (Array.isArray(value['messages']) && isObject(value['info']) && 'mini_version' in value['info'])
    return 'mini-swe-agent';
  if (Array.isArray(value['trajectory']) && (isObject(value['info']) || 'history' in value || 'environment' in value)) {
    return 'swe-agent';
  }
  if (Array.isArray(value['history']) && ('instance_id' in value || 'instruction' in value || 'metadata' in value)) {
    return 'openhands';
  }
  if (value['type'] === 'trajectory') return 'jsonl';
  if (typeof value['instance_id'] === 'string' && typeof value['problem_statement'] === 'string' && 'patch' in value) {
    return 'swe-bench-instance';
  }
  if (isResolutionDocument(value)) return 'resolution';
  return 'unknown';
}

function isResolutionDocument(value: Record<string, unknown>): boolean {
  if (Array.isArray(value['resolved_ids']) || Array.isArray(value['unresolved_ids'])) return true;
  if (typeof value['instance_id'] === 'string' && typeof value['resolved'] === 'boolean') return true;
  const entries = Object.values(value);
  if (entries.length === 0) return false;
  // {"<id>": {"resolved": true, …}} (per-instance report.json)
  if (entries.every(entry => isObject(entry) && typeof entry['resolved'] === 'boolean')) return true;
  // {"<run>": {"resolved": [ids], "unresolved": [ids]}} or SWE-bench/experiments results.json {"resolved": [ids], …}
  if (entries.every(entry => isObject(entry) && Array.isArray(entry['resolved']))) return true;
  return Array.isArray(value['resolved']) && entries.every(entry => Array.isArray(entry));
}

/** A short description of a document's shape, for "unrecognised format" errors. */
export function describeShape(value: unknown): string {
  if (Array.isArray(value)) return `a JSON array of ${value.length} items`;
  if (isObject(value)) {
    const keys = Object.keys(value);
    return `a JSON object with keys ${keys
      .slice(0, 8)
      .map(key => JSON.stringify(key))
      .join(', ')}${keys.length > 8 ? ', …' : ''}`;
  }
  return `a JSON ${value === null ? 'null' : typeof value}`;
}
