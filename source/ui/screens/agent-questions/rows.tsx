import {Box, Text} from 'ink';
import React from 'react';
import {oneLine, pad} from '../../../core/text/sanitize.js';
import type {Theme} from '../../theme.js';

export interface AgentQuestionRow {
  question: string;
  type: string;
  instance: string;
  correct: number;
  total: number;
  verdicts: string;
}

export function AgentQuestionRows({rows, top, cursor, width, height, theme}: {rows: AgentQuestionRow[]; top: number; cursor: number; width: number; height: number; theme: Theme}) {
  const idW = Math.max(20, width - 40);
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? <Text color={theme.muted}>No answers for this agent and model.</Text> : null}
      {rows.slice(top, top + height).map((r, i) => {
        const selected = top + i === cursor;
        return (
          <Text key={r.question} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {pad(r.type, 13)} {pad(`${r.correct}/${r.total}`, 6, 'right')} {pad(r.verdicts, 14)} {oneLine(r.question, idW)}
          </Text>
        );
      })}
    </Box>
  );
}

