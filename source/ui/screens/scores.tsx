import {Box, Text} from 'ink';
import React from 'react';
import {oneLine, pad, padMiddle, sanitize, wrapLines} from '../../core/text/sanitize.js';
import {QUESTION_TYPES, type Question} from '../../core/questions/model.js';
import type {ReportAgent} from '../../services/report.js';
import type {DisplayLine} from '../components/text-view.js';
import type {Theme} from '../theme.js';

const SHORT = {e2e_intent: 'E2E int', e2e_effect: 'E2E eff', local_intent: 'Loc int', local_effect: 'Loc eff'} as const;

const f = (x: number | null | undefined) => (x === null || x === undefined ? '  —  ' : x.toFixed(3));

/** Narrow terminals drop the bar, then the efficacy column, before squeezing the agent name. */
function columns(width: number) {
  const efficacy = width >= 100;
  const fixed = 8 * 4 + 16 + 12 + (efficacy ? 9 : 0);
  const agent = Math.max(12, Math.min(34, width - fixed - (width >= 110 ? 12 : 0)));
  const bar = width >= 110 ? Math.max(0, width - fixed - agent - 3) : 0;
  return {agent, bar, efficacy};
}

export function BoardHeader({width, theme}: {width: number; theme: Theme}) {
  const c = columns(width - 1);
  return (
    <Text bold underline={!theme.color} color={theme.muted} wrap="truncate-end">
      {' ' + [pad('agent (explanations)', c.agent), ...QUESTION_TYPES.map(t => pad(SHORT[t], 7, 'right')), pad('S_exp ± SEM', 15, 'right'), ...(c.bar ? [pad('', c.bar)] : []), ...(c.efficacy ? [pad('efficacy', 8, 'right')] : []), pad('rank e/eff', 11, 'right')].join(' ')}
    </Text>
  );
}

export function BoardRows({rows, top, cursor, width, height, theme}: {rows: ReportAgent[]; top: number; cursor: number; width: number; height: number; theme: Theme}) {
  const c = columns(width - 1);
  // an agent scored on fewer question types than the best-covered one is ranked on less: marked *
  const typesOf = (a: ReportAgent) => QUESTION_TYPES.filter(t => a.types[t].score !== null).length;
  const most = Math.max(0, ...rows.map(typesOf));
  return (
    <Box flexDirection="column" height={height}>
      {rows.length === 0 ? <Text color={theme.muted}>No answers stored for this model. `deltalens score` or `deltalens import --format explainbench DIR`.</Text> : null}
      {rows.slice(top, top + height).map((a, i) => {
        const selected = top + i === cursor;
        const filled = a.s_exp === null ? 0 : Math.round(a.s_exp * c.bar);
        const shift = a.rank_shift === null ? '' : a.rank_shift > 0 ? ` ↑${a.rank_shift}` : a.rank_shift < 0 ? ` ↓${-a.rank_shift}` : ' =';
        const fewer = typesOf(a) < most ? '*' : '';
        const ranks = `${fewer}#${a.rank_explanation ?? '—'}/${a.rank_efficacy === null ? '—' : `#${a.rank_efficacy}`}${shift}`;
        return (
          <Text key={`${a.agent}/${a.explanations}`} wrap="truncate-end" {...(selected ? theme.selected : {})}>
            {selected ? '›' : ' '}
            {padMiddle(`${a.agent}${a.explanations !== 'original' ? ` (${a.explanations})` : ''}`, c.agent)}{' '}
            {QUESTION_TYPES.map(t => pad(f(a.types[t].score), 7, 'right')).join(' ')} {pad(`${f(a.s_exp)} ± ${f(a.s_exp_sem)}`, 15, 'right')}{' '}
            {c.bar ? <Text color={selected ? undefined : theme.accent}>{'█'.repeat(filled)}{' '.repeat(Math.max(0, c.bar - filled))} </Text> : null}
            {c.efficacy ? `${pad(f(a.efficacy), 8, 'right')} ` : ''}
            {pad(ranks, 11, 'right')}
          </Text>
        );
      })}
    </Box>
  );
}

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

export interface QuestionView {
  q: Question;
  explanation: {id: number; kind: string; text: string | null} | null;
  answers: {model: string; sample: number; letters: string[] | null; verdict: string | null; raw: string | null; order: string[] | null}[];
  prompt: string | null;
  status: string | null;
}

/** The question screen as display lines (context, choices with the key, explanation, answers). */
export function questionLines(v: QuestionView, o: {showKey: boolean; showPrompt: boolean; width: number}): DisplayLine[] {
  const out: DisplayLine[] = [];
  const heading = (t: string) => out.push({text: t, role: 'heading'});
  const text = (t: string, language: DisplayLine['language'] = 'plain') => {
    for (const l of wrapLines(sanitize(t), Math.max(10, o.width - 2))) out.push({text: `  ${l}`, language});
  };
  if (v.status) out.push({text: v.status, role: 'hunk'});
  if (o.showPrompt) {
    heading('Prompt as sent (sample 1, its option order):');
    if (v.prompt === null) text('(no prompt: the explanation text is not in the data)');
    else text(v.prompt);
    return out;
  }
  heading('Question');
  text(v.q.question);
  heading('Context');
  for (const [k, val] of Object.entries(v.q.context)) {
    const s = typeof val === 'string' ? val : JSON.stringify(val);
    out.push({text: `  ${k}:`, role: 'muted'});
    text(s, k === 'test' || k === 'function' ? 'python' : 'plain');
  }
  heading(`Choices${o.showKey ? ' (✓ the key)' : ' (key hidden: v shows it)'}`);
  for (const c of v.q.choices) {
    const key = v.q.answer.map((k, i) => (k === c.label ? (v.q.type === 'e2e_effect' ? (i === 0 ? 'before' : 'after') : '✓') : null)).filter(Boolean);
    out.push({text: `  ${o.showKey && key.length ? `✓${key.join('+') === '✓' ? '' : ` ${key.join('+')}`}` : ' '} ${c.label}. ${oneLine(c.text, o.width - 12)}${o.showKey ? `  [${c.role}]` : ''}`, role: o.showKey && key.length ? 'added' : undefined});
  }
  heading(`Explanation${v.explanation ? ` (${v.explanation.kind}, #${v.explanation.id})` : ''}`);
  if (!v.explanation) text('(no explanation of this agent for this instance)');
  else if (v.explanation.text === null) text('(the text of this explanation is not in the data; its recorded answers are below — e edits a custom one)');
  else text(v.explanation.text || '(blank)');
  heading('Answers (every sample, per model)');
  if (!v.answers.length) text('none yet — r scores this question live');
  else out.push({text: '  letters are mapped back to the labels above; raw is the reply to the options in the order that sample showed them (shown as: …)', role: 'muted'});
  const models = [...new Set(v.answers.map(a => a.model))];
  for (const m of models) {
    const rows = v.answers.filter(a => a.model === m);
    const ok = rows.filter(a => a.verdict === 'correct').length;
    out.push({text: `  ${m}${m === 'lexical' ? ' (baseline)' : ''}: ${o.showKey ? `${ok}/${rows.length} correct` : `${rows.length} sample(s), verdicts hidden`}`, role: 'muted'});
    for (const a of rows) {
      const verdict = o.showKey ? (a.verdict ?? 'unparseable') : 'verdict hidden';
      const shown = a.order ? ` · shown as ${a.order.join('')}` : '';
      out.push({text: `    sample ${a.sample + 1}: ${a.letters ? a.letters.join(', ') : '—'} · ${verdict}${shown} · raw ${oneLine(a.raw ?? '', Math.max(10, o.width - 50 - shown.length))}`, role: a.verdict === 'correct' && o.showKey ? 'added' : a.verdict && o.showKey ? 'removed' : undefined});
    }
  }
  return out;
}
