import {Box, Text} from 'ink';
import type React from 'react';
import {sanitize} from '../../core/text/sanitize.js';
import {highlightLine} from '../highlight.js';
import type {Theme} from '../theme.js';

export {diffBlock, textBlock, type DisplayLine} from '../display-lines.js';
import type {DisplayLine} from '../display-lines.js';

export function TextView({
  lines,
  scroll,
  height,
  theme,
}: {
  lines: DisplayLine[];
  scroll: number;
  height: number;
  theme: Theme;
}) {
  const visible = lines.slice(scroll, scroll + height);
  return (
    <Box flexDirection="column" height={height}>
      {visible.map((line, i) => (
        <Line key={scroll + i} line={line} theme={theme} />
      ))}
    </Box>
  );
}

function Line({line, theme}: {line: DisplayLine; theme: Theme}) {
  // lines are built from data in many places; only the visible ones are sanitized here, again
  const text = line.text.length ? sanitize(line.text) : ' ';
  if (line.marks?.length && text === line.text) {
    // marked ranges (code-reasoning spans) underlined and bold, so they read without colour too
    const parts: React.ReactNode[] = [];
    let at = 0;
    line.marks.forEach(([a, b], i) => {
      if (a > at) parts.push(text.slice(at, a));
      parts.push(
        <Text key={i} underline bold color={theme.accent}>
          {text.slice(Math.max(a, at), b)}
        </Text>,
      );
      at = Math.max(at, b);
    });
    if (at < text.length) parts.push(text.slice(at));
    return <Text wrap="truncate-end">{parts}</Text>;
  }
  switch (line.role) {
    case 'heading':
      return (
        <Text bold color={theme.accent} wrap="truncate-end">
          {text}
        </Text>
      );
    case 'muted':
      return (
        <Text color={theme.muted} wrap="truncate-end">
          {text}
        </Text>
      );
    case 'added':
      return (
        <Text color={theme.added} bold={!theme.color} wrap="truncate-end">
          {text}
        </Text>
      );
    case 'removed':
      return (
        <Text color={theme.removed} dimColor={!theme.color} wrap="truncate-end">
          {text}
        </Text>
      );
    case 'hunk':
      return (
        <Text color={theme.hunk} wrap="truncate-end">
          {text}
        </Text>
      );
    default:
      return <Text wrap="truncate-end">{highlightLine(text, line.language ?? 'plain', theme.color)}</Text>;
  }
}
