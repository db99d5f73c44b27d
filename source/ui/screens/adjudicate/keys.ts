import type {Key} from 'ink';
import {bindingFor, ch, fieldKey, type Binding} from '../../keys.js';
import {ANNOTATE_BINDINGS, itemKey, type ItemContext} from '../annotate/keys.js';

/** Adjudication (ExplainBench §5.4, Fig. 4): items people disagreed on, with every label, every
 * model's answers and (on v) the key; the adjudicator's letters are the final answer. */
export const ADJUDICATE_BINDINGS: Binding[] = [
  {
    id: 'toggleKey',
    label: 'key',
    keys: 'v',
    description: 'show or hide the answer key',
    scopes: ['adjudicate'],
    hint: ['adjudicate'],
    match: ch('v'),
  },
  {
    id: 'nextItem',
    label: 'next/previous item',
    keys: 'n',
    description: 'the next conflicting item',
    scopes: ['adjudicate'],
    hint: ['adjudicate'],
    match: ch('n'),
  },
  {id: 'prevItem', keys: 'p', description: 'the previous conflicting item', scopes: ['adjudicate'], match: ch('p')},
];

interface AdjudicateState {
  index: number;
  letters: string[];
  phase: 'answer' | 'note';
  note: string;
  scroll: number;
  showKey: boolean;
  decided: number;
  message: string | null;
  quitting: boolean;
}

export const startAdjudicate = (): AdjudicateState => ({
  index: 0,
  letters: [],
  phase: 'answer',
  note: '',
  scroll: 0,
  showKey: false,
  decided: 0,
  message: null,
  quitting: false,
});

type AdjudicateIntent = {kind: 'save'; index: number; letters: string[]} | {kind: 'note'; index: number; text: string};

export function reduceAdjudicate(
  s: AdjudicateState,
  input: string,
  key: Key,
  ctx: ItemContext & {items: number},
): {state: AdjudicateState; intents: AdjudicateIntent[]} {
  if (key.ctrl && input === 'c') return {state: {...s, quitting: true}, intents: []};
  if (s.phase === 'note') {
    const k = fieldKey(s.note, input, key);
    if (!('done' in k)) return {state: {...s, note: k.text}, intents: []};
    const note = k.done === 'accept' ? s.note.trim() : '';
    return {
      state: {
        ...s,
        message: `final answer ${s.letters.join(' → ')} stored${note ? ' with its note' : ''}`,
        phase: 'answer',
        note: '',
        letters: [],
        index: s.index + 1,
        scroll: 0,
      },
      intents: note && ctx.choices ? [{kind: 'note', index: s.index, text: note}] : [],
    };
  }
  const b = bindingFor([...ADJUDICATE_BINDINGS, ...ANNOTATE_BINDINGS], ['adjudicate'], input, key);
  if (b?.id === 'quit' || b?.id === 'quitNow') return {state: {...s, quitting: true}, intents: []};
  if (b?.id === 'toggleKey') return {state: {...s, showKey: !s.showKey}, intents: []};
  if (b?.id === 'nextItem' || b?.id === 'prevItem') {
    return {
      state: {
        ...s,
        index: Math.min(Math.max(0, s.index + (b.id === 'nextItem' ? 1 : -1)), ctx.items),
        letters: [],
        scroll: 0,
      },
      intents: [],
    };
  }
  const {state, complete} = itemKey(s, b, input, ctx);
  if (!complete) return {state, intents: []};
  return {
    state: {...state, phase: 'note', decided: s.decided + 1, message: null},
    intents: [{kind: 'save', index: s.index, letters: state.letters}],
  };
}
