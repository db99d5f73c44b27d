import {Text} from 'ink';
import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {useModels} from '../board/screen.js';
import type {Env} from '../types.js';
import {BINDINGS, type AgentQuestionsScreen} from './keys.js';
import {AgentQuestionRows} from './rows.js';

export function AgentQuestionsComponent({screen: s, env}: {screen: AgentQuestionsScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version} = env;
  const {models, shownModel, runAgents} = useModels(env);
  const rows = useMemo(
    () => data.questions.agentQuestions(s.agent, s.explanations, s.model),
    [data, s.agent, s.explanations, s.model, version],
  );
  env.report({
    uid: s.uid!,
    total: rows.length,
    page: bodyHeight,
    models,
    shownModel,
    runAgents,
    questions: rows.map(r => r.question),
    copy: () => rows[s.list.cursor]?.question ?? null,
  });
  return (
    <ScreenFrame
      env={env}
      scope="agentQuestions"
      bindings={BINDINGS}
      title={`${s.agent} (${s.explanations}) · ${s.model ?? shownModel ?? ''}`}
      subheader={<Text color={theme.muted}> type right samples question</Text>}
      body={
        <AgentQuestionRows
          rows={rows}
          agent={s.agent}
          top={s.list.top}
          cursor={s.list.cursor}
          width={width}
          height={bodyHeight}
          theme={theme}
        />
      }
    />
  );
}
