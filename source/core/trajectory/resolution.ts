import {isObject} from './json-fields.js';

/**
 * Resolved/unresolved status from the many files that carry it: a SWE-bench harness summary
 * (`resolved_ids`, `unresolved_ids`, `empty_patch_ids`, `error_ids`), per-instance
 * `report.json` (`{"<id>": {"resolved": bool}}`), a one-instance excerpt
 * (`{"instance_id", "resolved"}`), SWE-bench/experiments `results.json`
 * (`{"resolved": [ids], "no_generation": [ids], …}`), and per-run results keyed by run
 * (`{"<run>": {"resolved": [ids], "unresolved": [ids]}}`).
 */
export interface ResolutionTable {
  /** Status per instance for any run. */
  all: Map<string, boolean>;
  /** Status per run name (a folder or configuration) and instance. */
  byRun: Map<string, Map<string, boolean>>;
}

const UNRESOLVED_LISTS = [
  'unresolved_ids',
  'empty_patch_ids',
  'error_ids',
  'unresolved',
  'no_generation',
  'no_logs',
  'empty_patch',
];

export function resolutionTable(value: unknown): ResolutionTable | null {
  if (!isObject(value)) return null;
  const all = new Map<string, boolean>();
  const byRun = new Map<string, Map<string, boolean>>();

  if (typeof value['instance_id'] === 'string' && typeof value['resolved'] === 'boolean') {
    all.set(value['instance_id'], value['resolved']);
    if (typeof value['run_id'] === 'string') byRun.set(value['run_id'], new Map(all));
    return {all, byRun};
  }
  if (Array.isArray(value['resolved_ids']) || Array.isArray(value['unresolved_ids'])) {
    fillFromLists(value, ['resolved_ids'], all);
    return {all, byRun};
  }
  const entries = Object.entries(value);
  if (entries.length && entries.every(([, entry]) => isObject(entry) && typeof entry['resolved'] === 'boolean')) {
    for (const [id, entry] of entries) all.set(id, (entry as {resolved: boolean}).resolved);
    return {all, byRun};
  }
  if (entries.length && entries.every(([, entry]) => isObject(entry) && Array.isArray(entry['resolved']))) {
    for (const [run, entry] of entries) {
      const table = new Map<string, boolean>();
      fillFromLists(entry as Record<string, unknown>, ['resolved'], table);
      byRun.set(run, table);
    }
    return {all, byRun};
  }
  if (Array.isArray(value['resolved'])) {
    fillFromLists(value, ['resolved'], all);
    return {all, byRun};
  }
  return null;
}

function fillFromLists(source: Record<string, unknown>, resolvedKeys: string[], into: Map<string, boolean>): void {
  for (const key of UNRESOLVED_LISTS) {
    const list = source[key];
    if (Array.isArray(list)) for (const id of list) if (typeof id === 'string') into.set(id, false);
  }
  for (const key of resolvedKeys) {
    const list = source[key];
    if (Array.isArray(list)) for (const id of list) if (typeof id === 'string') into.set(id, true);
  }
}

/** The status a table gives for one trajectory, preferring the entry of its own run. */
export function lookupResolution(table: ResolutionTable, instance: string, runNames: string[]): boolean | null {
  for (const run of runNames) {
    const status = table.byRun.get(run)?.get(instance);
    if (status !== undefined) return status;
  }
  if (table.byRun.size > 0 && table.all.size === 0) return null; // keyed by run, and not ours
  return table.all.get(instance) ?? null;
}
