import {Text} from 'ink';
import React from 'react';
import {fit} from '../../core/text/sanitize.js';
import {hintsFor, type Scope} from '../keymap.js';
import type {Theme} from '../theme.js';

export function Header({title, source, width, theme}: {title: string; source: string; width: number; theme: Theme}) {
  const left = `deltalens · ${title}`;
  const right = source;
  const gap = Math.max(1, width - [...left].length - [...right].length);
  return (
    <Text bold color={theme.accent} wrap="truncate-end">
      {fit(`${left}${' '.repeat(gap)}${right}`, width)}
    </Text>
  );
}

export function StatusBar({scope, width, theme, override}: {scope: Scope; width: number; theme: Theme; override?: string}) {
  const text = override ?? hintsFor(scope).map(b => `${b.keys.split(',')[0]} ${b.label ?? b.id}`).join('  ');
  return (
    <Text color={theme.muted} inverse={!theme.color} wrap="truncate-end">
      {fit(text, width).padEnd(width)}
    </Text>
  );
}
