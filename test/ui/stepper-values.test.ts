import {describe, expect, it} from 'vitest';
import type {SideView} from '../../source/services/stepper.js';
import {expandedLines} from '../../source/ui/screens/stepper/view.js';

const side = (doc: string, o: Partial<SideView> = {}): SideView => ({
  present: true,
  waiting: false,
  fn: 'f',
  file: 'm.py',
  line: 3,
  kind: 'line',
  recorded: true,
  stack: [],
  source: null,
  locals: [
    ['D', {$obj: 'Doc', attrs: {text: 'x'.repeat(5000), _orig_doc: doc}}],
    ['n', 1],
  ],
  ...o,
});

describe("the stepper's values in full (e)", () => {
  it('a large value that differs past what is shown: the path to the first difference and both values there, before it', () => {
    const lines = expandedLines({b: side('Returns x.'), p: side('Return x.')}, 100).map(l => l.text);
    expect(lines).toContain(" ≠ D._orig_doc first differs: buggy 'Returns x.' · patched 'Return x.'");
    expect(lines.findIndex(l => l.includes('first differs'))).toBeLessThan(
      lines.findIndex(l => l.startsWith(' ≠ D = ')),
    );
  });

  it('the row that ends a call shows what it returns or raises', () => {
    const lines = expandedLines(
      {
        b: side('a', {kind: 'return', result: 'returns 28'}),
        p: side('a', {kind: 'return', result: 'raises ValueError: no'}),
      },
      100,
    ).map(l => l.text);
    expect(lines).toContain(' ⏎ returns 28');
    expect(lines).toContain(' ⏎ raises ValueError: no');
  });
});
