import {describe, expect, it} from 'vitest';
import {parseListFilter} from '../../source/core/trajectory/list-filter.js';

describe('the list filter', () => {
  it('reads conditions in any order beside free text; an unknown condition stays text and is named', () => {
    expect(parseListFilter('tier:lucky django')).toEqual({tier: 'Lucky', text: 'django', unknown: []});
    expect(parseListFilter('resolved:no agent:demo-hasty')).toEqual({
      resolved: false,
      agent: 'demo-hasty',
      unknown: [],
    });
    expect(parseListFilter('resolved:unknown tier:none')).toEqual({resolved: null, tier: null, unknown: []});
    expect(parseListFilter('tier:great x')).toEqual({text: 'tier:great x', unknown: ['tier:great']});
    expect(parseListFilter('')).toEqual({unknown: []});
  });
});

describe('the list filter: instances and quoted values', () => {
  it('reads instance:ID, and a quoted value with spaces as one value', () => {
    expect(parseListFilter('instance:django__django-11099')).toEqual({instance: 'django__django-11099', unknown: []});
    expect(parseListFilter('agent:"my agent v2" tier:solid')).toEqual({
      agent: 'my agent v2',
      tier: 'Solid',
      unknown: [],
    });
    // an unclosed quote still ends the value at the end of the line
    expect(parseListFilter('agent:"half open')).toEqual({agent: 'half open', unknown: []});
  });
});
