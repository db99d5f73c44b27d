/**
 * The aligned stepper's rows: both executions side by side, statement by statement.
 * Matched items (the same statement under the patch's line mapping) share a row; where
 * control flow splits, each side's items get rows of their own (the other side waits),
 * until the two meet again. Calls are entered on both sides when they match, and
 * flattened on one side when only that side makes them.
 *
 * Built eagerly up to `maxRows` (the stepper is for reading, not for million-step runs);
 * `truncated` says when it stopped.
 */

import {append} from '../arrays.js';
import type {LineMap} from './line-map.js';
import {ROOT_FID, type FrameInfo, type Item, type TraceSource} from './model.js';

export type RowKind = 'match' | 'buggy-only' | 'patched-only';

export interface Side {
  seq: number;
  fid: number;
  kind: Item['kind'];
  /** the line (the callee's def line for calls) and the frame's file and function */
  line: number | null;
  file: string;
  fn: string;
}

export interface AlignedRow {
  kind: RowKind;
  depth: number;
  b: Side | null;
  p: Side | null;
  /** for matched rows: the items' recorded states are textually equal */
  same: boolean;
}

interface Alignment {
  rows: AlignedRow[];
  truncated: boolean;
}

const LOOKAHEAD = 64;
const PAGE = 4096;

function allItems(source: TraceSource, fid: number, budget: {left: number}): Item[] {
  const out: Item[] = [];
  let after = 0;
  if (fid !== ROOT_FID) after = source.frame(fid)?.callSeq ?? 0;
  for (;;) {
    const page = source.items(fid, after, PAGE);
    if (page.length === 0) break;
    append(out, page);
    if (out.length > budget.left) break;
    after = page.at(-1)!.seq;
  }
  return out;
}

export function alignTraces(buggy: TraceSource, patched: TraceSource, map: LineMap, maxRows = 200_000): Alignment {
  const rows: AlignedRow[] = [];
  const budget = {left: maxRows};
  let truncated = false;

  const side = (source: TraceSource, frame: FrameInfo | null, item: Item): Side => {
    if (item.kind === 'call') {
      const callee = source.frame(item.callee);
      return {
        seq: item.seq,
        fid: item.callee,
        kind: 'call',
        line: callee?.defLine ?? null,
        file: callee?.file ?? '',
        fn: callee?.fn ?? '?',
      };
    }
    return {
      seq: item.seq,
      fid: frame?.fid ?? ROOT_FID,
      kind: item.kind,
      line: item.line,
      file: frame?.file ?? '',
      fn: frame?.fn ?? '<test>',
    };
  };

  const push = (row: AlignedRow): boolean => {
    if (rows.length >= maxRows) {
      truncated = true;
      return false;
    }
    rows.push(row);
    budget.left = maxRows - rows.length;
    return true;
  };

  const same = (fb: FrameInfo | null, _fp: FrameInfo | null, ib: Item, ip: Item): boolean => {
    if (ib.kind !== ip.kind) return false;
    if (ib.kind === 'call' && ip.kind === 'call') {
      const cb = buggy.frame(ib.callee);
      const cp = patched.frame(ip.callee);
      return (
        !!cb && !!cp && cb.fn === cp.fn && cb.file === cp.file && (fb === null || map.same(fb.file, ib.line, ip.line))
      );
    }
    return map.same(fb?.file ?? '', ib.line, ip.line);
  };

  /** one side alone: its item, and the whole subtree below a call */
  const solo = (which: 'b' | 'p', source: TraceSource, frame: FrameInfo | null, item: Item, depth: number): boolean => {
    const s = side(source, frame, item);
    if (
      !push({
        kind: which === 'b' ? 'buggy-only' : 'patched-only',
        depth,
        b: which === 'b' ? s : null,
        p: which === 'p' ? s : null,
        same: false,
      })
    )
      return false;
    if (item.kind === 'call') {
      const callee = source.frame(item.callee);
      for (const child of allItems(source, item.callee, budget)) {
        if (!solo(which, source, callee ?? null, child, depth + 1)) return false;
      }
    }
    return true;
  };

  const frameOf = (source: TraceSource, fid: number): FrameInfo | null =>
    fid === ROOT_FID ? null : (source.frame(fid) ?? null);

  const walk = (fidB: number, fidP: number, depth: number): boolean => {
    const fb = frameOf(buggy, fidB);
    const fp = frameOf(patched, fidP);
    const ib = allItems(buggy, fidB, budget);
    const ip = allItems(patched, fidP, budget);
    let i = 0;
    let j = 0;
    while (i < ib.length || j < ip.length) {
      const a = ib[i];
      const b = ip[j];
      if (a && b && same(fb, fp, a, b)) {
        const stateSame = a.kind === 'call' || b.kind === 'call' ? true : a.hash === b.hash;
        if (!push({kind: 'match', depth, b: side(buggy, fb, a), p: side(patched, fp, b), same: stateSame}))
          return false;
        if (a.kind === 'call' && b.kind === 'call' && !walk(a.callee, b.callee, depth + 1)) return false;
        i++;
        j++;
        continue;
      }
      // resync: the nearest pair (i+di, j+dj) that matches, smallest di+dj first
      let best: [number, number] | null = null;
      for (let k = 1; k <= LOOKAHEAD && !best; k++) {
        for (let di = 0; di <= k; di++) {
          const dj = k - di;
          const x = ib[i + di];
          const y = ip[j + dj];
          if (x && y && same(fb, fp, x, y)) {
            best = [di, dj];
            break;
          }
        }
      }
      const [di, dj] = best ?? [ib.length - i, ip.length - j];
      for (let n = 0; n < di; n++) if (!solo('b', buggy, fb, ib[i + n]!, depth)) return false;
      for (let n = 0; n < dj; n++) if (!solo('p', patched, fp, ip[j + n]!, depth)) return false;
      i += di;
      j += dj;
    }
    return true;
  };

  walk(ROOT_FID, ROOT_FID, 0);
  return {rows, truncated};
}

/** Index of the row holding the delta's step (by either side's seq), or -1. */
export function rowOfDelta(rows: AlignedRow[], seqB: number | null, seqP: number | null): number {
  if (seqB === null && seqP === null) return -1;
  return rows.findIndex(r => (seqB !== null && r.b?.seq === seqB) || (seqP !== null && r.p?.seq === seqP));
}
