/**
 * AgentLens references (issue 5, first pieces): state equivalence, and the prefix-tree
 * acceptor (PTA) that merges the passing runs of one task, with support counts per node.
 * Leave-one-out: a run is compared with a reference built without it.
 */
import {append} from '../arrays.js';
import type {ActionState} from './state.js';

interface Equivalence {
  match: boolean;
  rule: 'same-kind' | 'scope' | 'file' | 'line-overlap' | 'command' | 'none';
  confidence: number;
}

function tokens(cmd: string): Set<string> {
  return new Set(cmd.toLowerCase().match(/[a-z0-9_./-]+/g) ?? []);
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (!a.size && !b.size) return 1;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter += 1;
  return inter / (a.size + b.size - inter);
}

const family = (s: ActionState) =>
  s.kind === 'run-test' || s.kind === 'run-script' ? 'run' : s.kind === 'create' ? 'edit' : s.kind;

/**
 * Two states are equivalent when they are the same family of action (read, search, list,
 * edit/create, run, other shell, think, submit) and:
 * - scope: both name the same function or class of the same file (from Python's ast, when the
 *   source was available) — confidence 0.90;
 * - line-overlap: the same file with line ranges overlapping ≥ 30 % of the shorter — confidence
 *   0.80 + 0.15 × overlap (0.80–0.95);
 * - file: the same file and at least one side names no range or scope — confidence 0.60;
 * - command: the same command group with token Jaccard > 0.5 — confidence 0.70 + 0.15 × (J − 0.5)/0.5
 *   (0.70–0.85);
 * - same-kind: neither names a file or a command (think, submit) — confidence 0.50.
 */
export function equivalent(a: ActionState, b: ActionState): Equivalence {
  if (family(a) !== family(b)) return NO;
  for (const fa of a.files) {
    for (const fb of b.files) {
      if (fa.path !== fb.path) continue;
      if (fa.scope && fb.scope) {
        if (fa.scope === fb.scope) return {match: true, rule: 'scope', confidence: 0.9};
        continue;
      }
      if (fa.lines && fb.lines) {
        const overlap = Math.min(fa.lines[1], fb.lines[1]) - Math.max(fa.lines[0], fb.lines[0]) + 1;
        const shorter = Math.min(fa.lines[1] - fa.lines[0] + 1, fb.lines[1] - fb.lines[0] + 1);
        const ratio = shorter > 0 ? Math.min(1, Math.max(0, overlap) / shorter) : 0;
        if (ratio >= 0.3) return {match: true, rule: 'line-overlap', confidence: round2(0.8 + 0.15 * ratio)};
        continue;
      }
      return {match: true, rule: 'file', confidence: 0.6};
    }
  }
  if (a.files.length || b.files.length) {
    if (!(a.command && b.command)) return NO;
  }
  if (a.command !== undefined && b.command !== undefined) {
    if (a.group !== b.group) return NO;
    const j = jaccard(tokens(a.command), tokens(b.command));
    return j > 0.5
      ? {match: true, rule: 'command', confidence: round2(0.7 + (0.15 * (j - 0.5)) / 0.5)}
      : {match: false, rule: 'none', confidence: 0};
  }
  if (!a.files.length && !b.files.length && a.command === undefined && b.command === undefined)
    return {match: true, rule: 'same-kind', confidence: 0.5};
  return NO;
}

const NO: Equivalence = {match: false, rule: 'none', confidence: 0};
const round2 = (x: number) => Math.round(x * 100) / 100;

export interface PtaNode {
  id: number;
  state: ActionState | null;
  support: number;
  /** the runs through this node */
  runs: string[];
  children: PtaNode[];
}

interface RunStates {
  id: string;
  states: ActionState[];
}

/** Merges runs into a prefix tree; a state joins the first child it is equivalent to. */
export function buildPta(runs: RunStates[]): PtaNode {
  let next = 0;
  const root: PtaNode = {id: next++, state: null, support: 0, runs: [], children: []};
  for (const run of runs) {
    let node = root;
    node.support += 1;
    node.runs.push(run.id);
    for (const s of run.states) {
      let child = node.children.find(c => c.state && equivalent(c.state, s).match);
      if (!child) {
        child = {id: next++, state: s, support: 0, runs: [], children: []};
        node.children.push(child);
      }
      child.support += 1;
      child.runs.push(run.id);
      node = child;
    }
  }
  return root;
}

/** The reference for one run: every other passing run of the task (leave-one-out). */
export function referenceFor(runId: string, passing: RunStates[]): PtaNode {
  return buildPta(passing.filter(r => r.id !== runId));
}

/** The path of highest support from the root (ties: the earlier child). */
export function bestPath(root: PtaNode): PtaNode[] {
  const path: PtaNode[] = [];
  let node = root;
  while (node.children.length) {
    node = node.children.reduce((best, c) => (c.support > best.support ? c : best));
    path.push(node);
  }
  return path;
}

/** The nodes a run follows from the root, and the index of its first state with no equivalent child (null: never leaves). */
export function followPath(root: PtaNode, states: ActionState[]): {path: PtaNode[]; leftAt: number | null} {
  let node = root;
  const path: PtaNode[] = [];
  for (const [i, s] of states.entries()) {
    const child = node.children.find(c => c.state && equivalent(c.state, s).match);
    if (!child) return {path, leftAt: i};
    path.push(child);
    node = child;
  }
  return {path, leftAt: null};
}

/** How far a run follows the reference: the index of its first state with no equivalent child (null: never leaves). */
export function divergence(root: PtaNode, states: ActionState[]): number | null {
  return followPath(root, states).leftAt;
}

/**
 * The PTA as a DAG: nodes whose states are equivalent and whose subtrees are already merged
 * into the same nodes (suffixes that agree) become one node, bottom-up; its support and runs
 * are the sums. A merged node may have several parents. The tree is not modified.
 */
export function toDag(root: PtaNode): PtaNode {
  const height = new Map<PtaNode, number>();
  const h = (n: PtaNode): number => {
    let v = height.get(n);
    if (v === undefined) {
      v = n.children.length ? 1 + Math.max(...n.children.map(h)) : 0;
      height.set(n, v);
    }
    return v;
  };
  h(root);
  const byHeight = [...height.keys()]
    .filter(n => n !== root)
    .sort((a, b) => height.get(a)! - height.get(b)! || a.id - b.id);
  const mergedOf = new Map<PtaNode, PtaNode>();
  const classes: {node: PtaNode; childIds: string}[] = [];
  for (const n of byHeight) {
    const children = uniqueById(n.children.map(c => mergedOf.get(c)!));
    const childIds = children
      .map(c => c.id)
      .sort((x, y) => x - y)
      .join(',');
    const same = classes.find(
      c => c.childIds === childIds && c.node.state && n.state && equivalent(c.node.state, n.state).match,
    );
    if (same) {
      same.node.support += n.support;
      append(same.node.runs, n.runs);
      mergedOf.set(n, same.node);
    } else {
      const copy: PtaNode = {id: n.id, state: n.state, support: n.support, runs: [...n.runs], children};
      classes.push({node: copy, childIds});
      mergedOf.set(n, copy);
    }
  }
  return {...root, runs: [...root.runs], children: uniqueById(root.children.map(c => mergedOf.get(c)!))};
}

function uniqueById(nodes: PtaNode[]): PtaNode[] {
  const seen = new Set<number>();
  return nodes.filter(n => {
    if (seen.has(n.id)) return false;
    seen.add(n.id);
    return true;
  });
}
