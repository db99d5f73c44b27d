import {Box, Text} from 'ink';
import {fit} from '../../../core/text/sanitize.js';
import {useMemo} from 'react';
import {QUESTION_TYPES} from '../../../core/questions/model.js';
import {ScreenFrame} from '../../components/frame.js';
import type {Env} from '../types.js';
import {BINDINGS, type BoardScreen} from './keys.js';
import {BoardHeader, BoardRows} from './rows.js';

/** The stored models and the report's default model: what m cycles through. */
export function useModels(env: Env) {
  const {data, version} = env;
  const models = useMemo(() => data.questions.models(), [data, version]);
  const shownModel = useMemo(() => data.questions.report(null).model, [data, version]);
  const runAgents = useMemo(() => data.runs.agents(), [data, version]);
  return {models, shownModel, runAgents};
}

export function BoardComponent({screen: s, env}: {screen: BoardScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const {models, shownModel, runAgents} = useModels(env);
  const report = useMemo(() => data.questions.report(s.model), [data, s.model, version]);
  const rows = report.agents;
  const typeCounts = rows.map(a => QUESTION_TYPES.filter(t => a.types[t].score !== null).length);
  // said under the table, not in the title (where 80 columns cut it)
  const partial = typeCounts.some(n => n < Math.max(...typeCounts));
  const height = partial ? bodyHeight - 1 : bodyHeight;
  env.report({
    uid: s.uid!,
    total: rows.length,
    page: height,
    models,
    shownModel,
    runAgents,
    agents: rows.map(a => ({agent: a.agent, explanations: a.explanations})),
    copy: () => rows[s.list.cursor]?.agent ?? null,
  });
  return (
    <ScreenFrame
      env={env}
      scope="board"
      bindings={BINDINGS}
      title={`Leaderboard · ${report.model ?? 'no answers'}${report.model === 'lexical' ? ' (baseline)' : ''}`}
      subheader={<BoardHeader width={width} theme={theme} />}
      body={
        rows.length || report.model ? (
          <Box flexDirection="column" height={bodyHeight}>
            <BoardRows
              rows={rows}
              top={s.list.top}
              cursor={s.list.cursor}
              width={width}
              height={height}
              theme={theme}
            />
            {partial ? (
              <Text color={theme.muted}>
                {fit('* scored on fewer question types than the others: ranked on less', width)}
              </Text>
            ) : null}
          </Box>
        ) : (
          <Text color={theme.muted}>
            No answers stored. `deltalens score` or `deltalens import --format explainbench DIR`.
          </Text>
        )
      }
    />
  );
}
