import {Box, Text} from 'ink';
import SelectInput from 'ink-select-input';
import {fit, oneLine} from '../../core/text/sanitize.js';
import type {Key} from 'ink';
import {bindingFor, type Binding} from '../keys.js';
import type {Theme} from '../theme.js';
import type {Picker} from './types.js';

/**
 * Choosing one of a list (a QA model, a flag verdict, an agent or tier filter). The keys are the
 * key system's (so a chunk like "f2" from a fast typist or tmux is split and handled in order,
 * even before the list has mounted); ink-select-input draws the list, its window and indicator.
 */
export const PICKER_BINDINGS: Binding[] = [
  {
    id: 'pickDown',
    label: 'down',
    keys: 'j, ↓',
    description: 'move down in the list being chosen from',
    scopes: ['picker'],
    hint: ['picker'],
    match: (input, key) => input === 'j' || key.downArrow,
  },
  {
    id: 'pickUp',
    label: 'up',
    keys: 'k, ↑',
    description: 'move up in the list being chosen from',
    scopes: ['picker'],
    hint: ['picker'],
    match: (input, key) => input === 'k' || key.upArrow,
  },
  {
    id: 'pickChoose',
    label: 'choose',
    keys: 'Enter, 1–9',
    description: 'choose the highlighted item, or the item with that number',
    scopes: ['picker'],
    hint: ['picker'],
    match: (input, key) => key.return || /^[1-9]$/.test(input),
  },
  {
    id: 'pickCancel',
    label: 'cancel',
    keys: 'Esc',
    description: 'close the list without choosing',
    scopes: ['picker'],
    hint: ['picker'],
    match: (_, key) => key.escape || key.backspace || key.delete,
  },
];

/** A key on an open picker: the highlighted index after it, the value chosen, or cancel. */
export function pickerKey(
  p: Picker & {index: number},
  input: string,
  key: Key,
): {index: number} | {chosen: string} | {cancel: true} | null {
  const b = bindingFor(PICKER_BINDINGS, ['picker'], input, key);
  if (!b) return null;
  const last = p.items.length - 1;
  if (b.id === 'pickCancel') return {cancel: true};
  if (b.id === 'pickDown') return {index: p.index >= last ? 0 : p.index + 1};
  if (b.id === 'pickUp') return {index: p.index <= 0 ? last : p.index - 1};
  const at = key.return ? p.index : Number(input) - 1;
  const item = p.items[at];
  return item ? {chosen: item.value} : null;
}

export function PickerView({
  picker,
  width,
  height,
  theme,
}: {
  picker: Picker & {index: number};
  width: number;
  height: number;
  theme: Theme;
}) {
  const limit = Math.max(1, height - 1);
  // numbers stay true only while the list does not scroll (ink-select-input counts what is shown)
  const numbered = picker.items.length <= limit;
  const items = picker.items.map((item, i) => ({
    key: `${i}`,
    value: item.value,
    label: fit(`${numbered && i < 9 ? `${i + 1} ` : '  '}${oneLine(item.label, width)}`, Math.max(10, width - 4)),
  }));
  return (
    <Box flexDirection="column" height={height}>
      <Text bold color={theme.accent} wrap="truncate-end">
        {fit(picker.title, width)}
      </Text>
      {/* not focused: the highlight is the router's; a new index draws a new list */}
      <SelectInput key={picker.index} items={items} isFocused={false} initialIndex={picker.index} limit={limit} />
    </Box>
  );
}
