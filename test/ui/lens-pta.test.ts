/**
 * Where the ◆ "leaves here" marker is drawn in the reference tree (P): right under the node the
 * run leaves from, before that node's children — at the root, the first line of the tree, not
 * after the last branch's subtree.
 */
import {describe, expect, it} from 'vitest';
import type {PtaNode} from '../../source/core/lens/pta.js';
import type {ActionState} from '../../source/core/lens/state.js';
import {ptaLines} from '../../source/ui/pta-lines.js';
import type {PtaView} from '../../source/services/lens.js';

const read = (path: string): ActionState => ({kind: 'read', files: [{path}]}) as ActionState;
let next = 0;
const node = (state: ActionState | null, children: PtaNode[] = []): PtaNode => ({
  id: next++,
  state,
  support: 1,
  runs: ['1'],
  children,
});

function view(root: PtaNode, path: number[], leftAt: number | null, states: ActionState[]): PtaView {
  return {
    trajectory: 9,
    instance: 'x',
    agent: 'a',
    resolved: true,
    root,
    refRuns: [1, 2],
    excluded: [],
    path: new Set(path),
    leftAt,
    states: states.map((state, idx) => ({idx, state})),
  };
}

describe('the PTA view marks where the run leaves', () => {
  it('leaving at the root: ◆ is the first line under root, before every branch', () => {
    const root = node(null, [node(read('a.py'), [node(read('a2.py'))]), node(read('b.py'), [node(read('b2.py'))])]);
    const lines = ptaLines(view(root, [], 0, [read('zzz.py')]), 100).map(l => l.text);
    const at = lines.findIndex(l => l.startsWith('root'));
    expect(lines[at + 1]).toMatch(/◆ #9 leaves here at step 1: read zzz\.py — no equivalent child of the root/);
    expect(lines.filter(l => l.includes('leaves here'))).toHaveLength(1);
  });

  it('leaving below a node: ◆ right under that node, before its children', () => {
    const a = node(read('a.py'), [node(read('a2.py')), node(read('a3.py'))]);
    const root = node(null, [a, node(read('b.py'))]);
    const lines = ptaLines(view(root, [a.id], 1, [read('a.py'), read('other.py')]), 100).map(l => l.text);
    const at = lines.findIndex(l => l.includes('▶ read a.py'));
    expect(lines[at + 1]).toMatch(/◆ #9 leaves here at step 2: read other\.py — no equivalent child$/);
    expect(lines[at + 2]).toContain('read a2.py');
  });
});
