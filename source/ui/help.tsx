import {Box, Text} from 'ink';
import type React from 'react';
import {fit, wrapLines} from '../core/text/sanitize.js';
import {GLOBAL_BINDINGS, TEXT_FIELD_BINDINGS, type Binding, type Scope} from './keys.js';
import {SCREENS} from './screens/index.js';
import {PICKER_BINDINGS} from './screens/picker.js';
import {STAGE_BINDINGS} from './screens/trajectory/stage.js';
import type {Theme} from './theme.js';

const SUB_MODES: {title: string; bindings: Binding[]}[] = [
  {title: 'A line being typed (filter, find, watch, note)', bindings: TEXT_FIELD_BINDINGS},
  {title: 'The stage prompt (c on a step)', bindings: STAGE_BINDINGS},
  {title: 'Choosing from a list (a, L, M, f)', bindings: PICKER_BINDINGS},
];

/**
 * Every key of the explorer, generated from the bindings so it cannot drift: this screen's keys
 * first, then those that work everywhere (once), then the other screens' own keys.
 */
export function helpGroups(scope: Scope): {title: string; bindings: Binding[]; here?: boolean}[] {
  const here = Object.values(SCREENS).find(d => d.kind === scope);
  return [
    ...(here ? [{title: `${here.title} (here)`, bindings: here.bindings, here: true}] : []),
    {title: 'Everywhere', bindings: GLOBAL_BINDINGS},
    ...Object.values(SCREENS)
      .filter(d => d !== here)
      .map(d => ({title: d.title, bindings: d.bindings.filter(b => b.scopes.includes(d.kind as Scope))})),
    ...SUB_MODES,
  ];
}

/** The keys' column of the help: its descriptions start after it. */
const KEY_COLUMN = 20;

export function helpLines(scope: Scope, width: number, theme: Theme): React.ReactNode[] {
  const groups = helpGroups(scope);
  const lines: React.ReactNode[] = [];
  for (const g of groups) {
    if (!g.bindings.length) continue;
    lines.push(
      <Text key={`h-${g.title}`} bold color={g.here ? theme.accent : undefined}>
        {fit(g.title, width)}
      </Text>,
    );
    for (const b of g.bindings) {
      // the description wraps under itself: at 80 columns no key's meaning is cut
      const keys = `  ${b.keys.padEnd(KEY_COLUMN)} `;
      const room = width - [...keys].length;
      const parts = room >= 20 ? wrapLines(b.description, room) : [b.description];
      parts.forEach((part, i) =>
        lines.push(
          <Text key={`${g.title}-${b.id}-${i}`} wrap="truncate-end">
            {fit(`${i === 0 ? keys : ' '.repeat([...keys].length)}${part}`, width)}
          </Text>,
        ),
      );
    }
  }
  return lines;
}

export function HelpOverlay({lines, scroll, height}: {lines: React.ReactNode[]; scroll: number; height: number}) {
  return (
    <Box flexDirection="column" height={height}>
      {lines.slice(scroll, scroll + height)}
    </Box>
  );
}
