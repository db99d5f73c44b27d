import {Box, Text} from 'ink';
import {oneLine, pad} from '../../../core/text/sanitize.js';
import type {Theme} from '../../theme.js';
import type {AgentQuestionRow} from '../../data/questions.js';

/** A question's id without what the row says already (its type, the agent): what tells it apart. */
function shortQuestionId(id: string, type: string, agent: string): string {
  return id.replace(`/${type}/`, '/').replace(`/${agent}/`, '/').replace(/\/+$/, '');
}

export function AgentQuestionRows({
  rows,
  agent,
  top,
  cursor,
  width,
  height,
  theme,
}: {
  rows: AgentQuestionRow[];
  agent: string;
  top: number;
  cursor: number;
  width: number;
  height: number;
  theme: Theme;
}) {
  const idW = Math.max(20, width - 40);
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? <Text color={theme.muted}>No answers for this agent and model.</Text> : null}
      {rows.slice(top, top + height).map((r, i) => {
        const selected = top + i === cursor;
        return (
          <Text key={r.question} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {pad(r.type, 13)} {pad(`${r.correct}/${r.total}`, 6, 'right')} {pad(r.verdicts, 14)}{' '}
            {oneLine(shortQuestionId(r.question, r.type, agent), idW)}
          </Text>
        );
      })}
    </Box>
  );
}
