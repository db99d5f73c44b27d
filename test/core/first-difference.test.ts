import {describe, expect, it} from 'vitest';
import {firstDifference} from '../../source/core/trace/values.js';

describe('where two recorded values first differ', () => {
  it('walks into objects by attribute, dicts by key, lists and tuples by index', () => {
    const doc = (text: string) => ({
      $obj: 'sympy.Function',
      attrs: {nargs: {$tuple: [1]}, _orig_doc: text, cache: {$dict: [['a', 1]]}},
    });
    expect(firstDifference(doc('Returns x.'), doc('Return x.'))).toEqual({
      path: '._orig_doc',
      buggy: 'Returns x.',
      patched: 'Return x.',
    });
    expect(
      firstDifference(
        {
          $dict: [
            ['a', [1, 2]],
            ['b', 3],
          ],
        },
        {
          $dict: [
            ['a', [1, 5]],
            ['b', 3],
          ],
        },
      ),
    ).toEqual({path: "['a'][1]", buggy: 2, patched: 5});
    expect(firstDifference({$tuple: [1, 2]}, {$tuple: [1, 2, 3]})).toEqual({path: '[2]', buggy: undefined, patched: 3});
    expect(firstDifference({$obj: 'A', attrs: {x: 1}}, {$obj: 'A', attrs: {x: 1, y: 2}})).toEqual({
      path: '.y',
      buggy: undefined,
      patched: 2,
    });
  });

  it('a value of another kind, or of another class, differs as a whole; equal values do not differ', () => {
    expect(firstDifference(1, 'a')).toEqual({path: '', buggy: 1, patched: 'a'});
    expect(firstDifference({$obj: 'A', attrs: {}}, {$obj: 'B', attrs: {}})).toMatchObject({path: ''});
    expect(firstDifference({$set: [1, 2]}, {$set: [1, 2]})).toBeNull();
  });
});
