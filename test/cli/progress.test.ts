import {describe, expect, it} from 'vitest';
import {partsText} from '../../source/commands/questions-build.js';

describe('questions build progress', () => {
  it('names the part that runs of all, the time taken, and after two parts about how long is left', () => {
    const t0 = 1_000_000;
    expect(partsText({done: 0, total: 6}, t0, t0 + 4_000)).toBe('part 1/6, 4s');
    expect(partsText({done: 1, total: 6}, t0, t0 + 10_000)).toBe('part 2/6, 10s');
    expect(partsText({done: 3, total: 6}, t0, t0 + 90_000)).toBe('part 4/6, 1m30s, about 1m30s left');
    expect(partsText({done: 6, total: 6}, t0, t0 + 200_000)).toBe('part 6/6, 3m20s');
    expect(partsText({done: 0, total: 0}, t0, t0 + 2_000)).toBe('2s');
  });
});
