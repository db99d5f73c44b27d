import {INSUFFICIENT_TEXT, NO_EFFECT_TEXT, type Choice} from './model.js';

/** How a built question's options are labelled: in the order given, the fixed options last. */
const LABELS = 'ABCDEFGHIJ';

/** Choices labelled A, B, … in the given order, with "insufficient" last. */
export function labelled(options: {text: string; role: Choice['role']}[]): Choice[] {
  return [...options, {text: INSUFFICIENT_TEXT, role: 'insufficient' as const}].map((c, i) => ({
    label: LABELS[i]!,
    text: c.text,
    role: c.role,
  }));
}

/** Local effect's choices: the options, "the patch has no effect", then "insufficient". */
export function labelledEffect(options: {text: string; role: Choice['role']}[]): Choice[] {
  return [
    ...options,
    {text: NO_EFFECT_TEXT, role: 'no_effect' as const},
    {text: INSUFFICIENT_TEXT, role: 'insufficient' as const},
  ].map((c, i) => ({label: LABELS[i]!, text: c.text, role: c.role}));
}
