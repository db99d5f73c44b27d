import {describe, expect, it} from 'vitest';
import {equivalent} from '../../source/core/lens/pta.js';
import {locateEdit, scopeAt, withScopes, type Scope} from '../../source/core/lens/scope.js';

const source = [
  'class CycleError(ValueError):',
  '    """x"""',
  '',
  '',
  'def topo_sort(graph):',
  '    order = []',
  '    def visit(node):',
  '        if mark == "active":',
  '            return',
  '        order.append(node)',
  '    return order',
].join('\n');
const scopes: Scope[] = [
  {qualname: 'CycleError', kind: 'class', start: 1, end: 2},
  {qualname: 'topo_sort', kind: 'function', start: 5, end: 11},
  {qualname: 'topo_sort.visit', kind: 'function', start: 7, end: 10},
];

describe('function/class scope of a state', () => {
  it('is the innermost def or class containing the whole range', () => {
    expect(scopeAt(scopes, [8, 9])).toBe('topo_sort.visit');
    expect(scopeAt(scopes, [6, 8])).toBe('topo_sort');
    expect(scopeAt(scopes, [1, 11])).toBeNull();
    expect(scopeAt(scopes, [3, 3])).toBeNull();
  });

  it('locates an edit by the text it replaces: sed s///, a sed address, Python old = / .replace(', () => {
    expect(
      locateEdit("sed -i 's/            return/            raise CycleError(node)/' graphs/topo.py", source),
    ).toEqual([9, 9]);
    expect(locateEdit(`sed -i '/if mark == "active":/{n;s/return/raise/}' graphs/topo.py`, source)).toEqual([8, 8]);
    expect(
      locateEdit("python - <<'PY'\nold = '        if mark == \"active\":\\n            return'\nPY", source),
    ).toEqual([8, 9]);
    expect(
      locateEdit('python - <<\'PY\'\ns = s.replace("order.append(node)", "order.insert(0, node)")\nPY', source),
    ).toEqual([10, 10]);
    expect(locateEdit("sed -i 's/nothing like this/x/' a.py", source)).toBeNull();
  });

  it('two edits of the same function are equivalent by scope; of different functions they are not', () => {
    const src = new Map([['graphs/topo.py', {scopes, text: source}]]);
    const a = withScopes(
      {kind: 'edit', files: [{path: 'graphs/topo.py'}]},
      "sed -i 's/            return/            raise X/' graphs/topo.py",
      src,
    );
    const b = withScopes({kind: 'edit', files: [{path: 'graphs/topo.py', lines: [8, 10]}]}, null, src);
    const c = withScopes({kind: 'edit', files: [{path: 'graphs/topo.py', lines: [1, 2]}]}, null, src);
    expect(a.files[0]!.scope).toBe('topo_sort.visit');
    expect(equivalent(a, b)).toEqual({match: true, rule: 'scope', confidence: 0.9});
    expect(equivalent(a, c).match).toBe(false);
  });
});
