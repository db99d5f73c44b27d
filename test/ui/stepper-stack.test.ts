import {describe, expect, it} from 'vitest';
import {stackLines} from '../../source/ui/screens/stepper/view.js';

const frame = (fn: string, line: number) => ({fn, file: 'lib.py', line});
const stack = [frame('inner', 9), frame('c', 8), frame('b', 7), frame('a', 6), frame('test_it', 5)];

describe('the stepper call stack', () => {
  it('shows every caller that fits, and counts the ones that do not', () => {
    expect(stackLines(stack, 4)).toEqual([
      '  ↑ c lib.py:8',
      '  ↑ b lib.py:7',
      '  ↑ a lib.py:6',
      '  ↑ test_it lib.py:5',
    ]);
    expect(stackLines(stack, 3)).toEqual(['  ↑ c lib.py:8', '  ↑ b lib.py:7', '  ↑ … 2 more callers']);
    expect(stackLines(stack, 2)).toEqual(['  ↑ c lib.py:8', '  ↑ … 3 more callers']);
    expect(stackLines(stack, 1)).toEqual(['  ↑(+3) c lib.py:8']);
    expect(stackLines(stack.slice(0, 1), 3)).toEqual([]);
  });
});
