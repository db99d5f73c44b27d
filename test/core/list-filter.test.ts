import {describe, expect, it} from 'vitest';
import {parseListFilter} from '../../source/core/trajectory/list-filter.js';

describe('the list filter', () => {
  it('reads conditions in any order beside free text; an unknown condition stays text and is named', () => {
    expect(parseListFilter('tier:lucky django')).toEqual({tier: 'Lucky', text: 'django', unknown: []});
    expect(parseListFilter('resolved:no agent:demo-hasty')).toEqual({resolved: false, agent: 'demo-hasty', unknown: []});
    expect(parseListFilter('resolved:unknown tier:none')).toEqual({resolved: null, tier: null, unknown: []});
    expect(parseListFilter('tier:great x')).toEqual({text: 'tier:great x', unknown: ['tier:great']});
    expect(parseListFilter('')).toEqual({unknown: []});
  });
});
