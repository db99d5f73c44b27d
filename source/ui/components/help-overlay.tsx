import {Box, Text} from 'ink';
import React from 'react';
import {fit} from '../../core/text/sanitize.js';
import {BINDINGS, type Scope} from '../keymap.js';
import type {Theme} from '../theme.js';

const SCOPE_TITLES: Record<Scope | 'global', string> = {
  global: 'Everywhere',
  list: 'Trajectory list',
  trajectory: 'Trajectory',
  step: 'Step detail',
  pairs: 'Traced pairs',
  stepper: 'Trace stepper',
  board: 'Leaderboard',
  agentQuestions: "An agent's questions",
  question: 'Question',
  pta: 'PTA reference',
  ranking: 'Lens rankings',
  agreement: 'Agreement',
};

/** Every key, grouped by where it works; generated from the keymap so it cannot drift. */
export function helpLines(scope: Scope, width: number, theme: Theme): React.ReactNode[] {
  const lines: React.ReactNode[] = [];
  const order: (Scope | 'global')[] = ['global', scope, ...(['list', 'trajectory', 'step', 'pairs', 'stepper', 'board', 'agentQuestions', 'question', 'pta', 'ranking', 'agreement'] as Scope[]).filter(s => s !== scope)];
  for (const group of order) {
    const bindings = BINDINGS.filter(b => (group === 'global' ? b.scopes.includes('global') : b.scopes.includes(group) && !b.scopes.includes('global')));
    if (!bindings.length) continue;
    lines.push(
      <Text key={`h-${group}`} bold color={group === scope ? theme.accent : undefined}>
        {fit(`${SCOPE_TITLES[group]}${group === scope ? ' (here)' : ''}`, width)}
      </Text>,
    );
    for (const b of bindings) {
      lines.push(
        <Text key={`${group}-${b.id}`} wrap="truncate-end">
          {fit(`  ${b.keys.padEnd(20)} ${b.description}`, width)}
        </Text>,
      );
    }
  }
  lines.push(<Text key="close" color={theme.muted}>{fit('? or Esc closes this help; j/k scroll it', width)}</Text>);
  return lines;
}

export function HelpOverlay({lines, scroll, height}: {lines: React.ReactNode[]; scroll: number; height: number}) {
  return (
    <Box flexDirection="column" height={height}>
      {lines.slice(scroll, scroll + height)}
    </Box>
  );
}
