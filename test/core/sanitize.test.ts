import {describe, expect, it} from 'vitest';
import {oneLine, sanitize, wrapLines} from '../../source/core/text/sanitize.js';

describe('sanitize', () => {
  it('removes cursor moves, screen clears, OSC titles and lone controls from untrusted text; a NUL byte shows as ␀', () => {
    const hostile = 'ok\x1b[2J\x1b[H\x1b]0;pwned\x07 red:\x1b[31mX\x1b[0m bell\x07 nul\x00 c1\x9b';
    expect(sanitize(hostile)).toBe('ok red:X bell nul␀ c1');
  });
  it('keeps what a terminal finally shows of carriage-return progress lines', () => {
    expect(sanitize('10%\r50%\r100% done\nnext')).toBe('100% done\nnext');
  });
  it('cuts list cells to width with an ellipsis and wraps long lines at spaces', () => {
    expect(oneLine('first line\nsecond', 6)).toBe('first…');
    expect(wrapLines('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb ', 'cccc']);
    expect(wrapLines('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });
});

describe('fitMiddle: names that differ only at the end stay distinct', () => {
  it('keeps the head and the tail around one ellipsis, within the width', async () => {
    const {fitMiddle, padMiddle} = await import('../../source/core/text/sanitize.js');
    const a = fitMiddle('results-baseline-truncated-16k (original)', 24);
    const b = fitMiddle('results-baseline-truncated-16k (audited)', 24);
    expect([...a].length).toBeLessThanOrEqual(24);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^results-baseline.*…/);
    expect(b).toMatch(/…\S*dited\)$/);
    expect(fitMiddle('short', 24)).toBe('short');
    expect([...padMiddle('x'.repeat(50), 10)].length).toBe(10);
    expect(fitMiddle('\x1b[31mred\x1b[0m-name', 24)).toBe('red-name');
  });
});
