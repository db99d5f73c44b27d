import {Box, Text} from 'ink';
import {useMemo} from 'react';
import {ScreenFrame} from '../../components/frame.js';
import {TextView} from '../../components/text-view.js';
import {flagLines} from '../agreement/lines.js';
import {useModels} from '../board/screen.js';
import {CHOICES_ONLY} from '../../../services/scoring.js';
import {sanitize, wrapLines} from '../../../core/text/sanitize.js';
import type {Env} from '../types.js';
import {BINDINGS, type QuestionScreen} from './keys.js';
import {provenanceLines, questionLines} from './lines.js';

export function QuestionComponent({screen: s, env}: {screen: QuestionScreen; env: Env}) {
  const {data, width, bodyHeight, theme, version, status} = env;
  const {models, shownModel, runAgents} = useModels(env);
  const q = useMemo(
    () => data.questions.question(s.id, s.agent, s.explanations, s.explanationId),
    [data, s.id, s.agent, s.explanations, s.explanationId, version],
  );
  const instanceRuns = useMemo(() => (q ? data.runs.count({instance: q.q.instance}) : 0), [data, q]);
  const flags = useMemo(() => data.questions.flags(s.id), [data, s.id, version]);
  const provenance = useMemo(() => data.questions.provenance(s.id), [data, s.id, version]);
  const audits = useMemo(() => (q ? data.audits.auditIds(q.q.instance, s.agent) : []), [data, q, s.agent, version]);
  // a "[choices only]" run is a way of asking a model, not a model r could ask
  const qaModels = useMemo(
    () => [
      ...new Set([
        'lexical',
        ...(data.qaModel ? [data.qaModel] : []),
        ...models.filter(m => !m.endsWith(CHOICES_ONLY)),
      ]),
    ],
    [data, models],
  );
  const lines = useMemo(
    () =>
      q
        ? [
            ...questionLines(q, {showKey: s.showKey, showPrompt: s.showPrompt, width}),
            ...flagLines(flags, width),
            ...(s.showKey && !s.showPrompt ? provenanceLines(provenance, q.q, width) : []),
          ]
        : [],
    [q, flags, provenance, s.showKey, s.showPrompt, width],
  );
  // the status (a re-score's or an edit's result, often long) stays in sight above the text,
  // wherever it is scrolled to: at most two lines
  const statusLines = useMemo(
    () => (status ? wrapLines(sanitize(status), Math.max(10, width)).slice(0, 2) : []),
    [status, width],
  );
  const textHeight = Math.max(1, bodyHeight - statusLines.length);
  env.report({
    uid: s.uid!,
    total: lines.length,
    page: textHeight,
    models,
    shownModel,
    runAgents,
    qaModels,
    instance: q?.q.instance ?? null,
    instanceRuns,
    built: Boolean(provenance && (provenance.provenance.built || provenance.provenance.problems.length)),
    audits,
    explanation: q?.explanation ? {id: q.explanation.id, text: q.explanation.text} : null,
    copy: () => s.id,
  });
  return (
    <ScreenFrame
      env={env}
      scope="question"
      bindings={BINDINGS}
      ownStatus
      title={`Question · ${s.id}`}
      subheader={
        <Text wrap="truncate-end">
          <Text bold>{q ? `${q.q.type} · ${q.q.instance}` : 'not found'}</Text>
          <Text color={theme.muted}>
            {' '}
            · explanation of {s.agent} ({s.explanationId !== null ? 'custom' : s.explanations})
            {s.qaModel ? ` · r asks ${s.qaModel}` : ''}
          </Text>
        </Text>
      }
      body={
        q ? (
          <Box flexDirection="column" height={bodyHeight}>
            {statusLines.map((l, i) => (
              <Text key={i} color={theme.hunk} wrap="truncate-end">
                {l}
              </Text>
            ))}
            <TextView lines={lines} scroll={s.scroll} height={textHeight} theme={theme} />
          </Box>
        ) : (
          <Text color={theme.bad}>No question {s.id}. Esc goes back.</Text>
        )
      }
    />
  );
}
