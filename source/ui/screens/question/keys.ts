import type {Key} from 'ink';
import {FLAG_TEXT, FLAG_VERDICTS} from '../../../core/questions/annotation.js';
import {ch, INSTANCE_BINDING, fieldKey, fieldPrompt, MOVES, type Binding, type Scope} from '../../keys.js';
import {moveScroll, START} from '../../nav.js';
import {MODEL_BINDING, nextModel, RUNS_BINDING, type ModelsView} from '../board/keys.js';
import {listScreen, withCondition} from '../list/keys.js';
import {AUDIT_BINDING} from '../trajectory/keys.js';
import type {Outcome} from '../types.js';

/** One question × one explanation: context, choices (and key), the explanation, every answer. */
export interface QuestionScreen {
  kind: 'question';
  uid?: number;
  id: string;
  agent: string;
  explanations: string;
  /** the QA model whose stored answers are shown (null: the report's default) */
  model: string | null;
  scroll: number;
  showKey: boolean;
  showPrompt: boolean;
  /** a custom explanation made here replaces the shown one */
  explanationId: number | null;
  /** the QA model r asks (chosen with M; null: $DELTALENS_QA_MODEL, else lexical) */
  qaModel?: string | null;
  /** f: the verdict is chosen, the note is being typed */
  flag?: {verdict: string; note: string} | null;
  /** X on a built question: the rejection's note is being typed */
  reject?: {note: string} | null;
}

declare module '../types.js' {
  interface ScreenStates {
    question: QuestionScreen;
  }
}

export function questionScreen(id: string, agent: string, explanations: string): QuestionScreen {
  return {
    kind: 'question',
    id,
    agent,
    explanations,
    model: null,
    scroll: 0,
    showKey: true,
    showPrompt: false,
    explanationId: null,
  };
}

export interface QuestionView extends ModelsView {
  instance: string | null;
  /** runs of the instance in the store */
  instanceRuns: number;
  explanation: {id: number; text: string | null} | null;
  /** the models r can ask: lexical, $DELTALENS_QA_MODEL, and every model with stored answers */
  qaModels: string[];
  /** made by questions build (only those are accepted, rejected or edited here) */
  built: boolean;
  /** the audits of this agent's explanation of the instance */
  audits?: number[];
}

export const BINDINGS: Binding[] = [
  INSTANCE_BINDING,
  {
    id: 'toggleKey',
    label: 'key',
    keys: 'v',
    description: 'show or hide the answer key',
    scopes: ['question'],
    hint: ['question'],
    match: ch('v'),
  },
  {
    id: 'togglePrompt',
    label: 'prompt',
    keys: 'p',
    description: 'show the prompt exactly as sent (sample 1)',
    scopes: ['question'],
    hint: ['question'],
    match: ch('p'),
  },
  {
    id: 'rescore',
    label: 're-score',
    keys: 'r',
    description:
      're-score this question × explanation live with the QA model (M chooses it; default $DELTALENS_QA_MODEL, else lexical)',
    scopes: ['question'],
    hint: ['question'],
    match: ch('r'),
  },
  {
    id: 'rescoreFresh',
    keys: 'R',
    description: 're-score with new samples (r answers only the samples not stored yet; R asks the model 5 more times)',
    scopes: ['question'],
    match: ch('R'),
  },
  {
    id: 'pickQaModel',
    keys: 'M',
    description: 'choose the QA model r and R ask, from a list',
    scopes: ['question'],
    match: ch('M'),
  },
  {
    id: 'flagQuestion',
    label: 'flag',
    keys: 'f',
    description:
      'flag the question (valid, ambiguous, wrong key, guessable, leaks the answer, broken context; chosen from a list) with a note, under $DELTALENS_ANNOTATOR',
    scopes: ['question'],
    hint: ['question'],
    match: ch('f'),
  },
  {
    id: 'editExplanation',
    label: 'edit',
    keys: 'e',
    description: 'edit the explanation in $EDITOR and keep it as a custom explanation',
    scopes: ['question'],
    hint: ['question'],
    match: ch('e'),
  },
  {
    id: 'acceptQuestion',
    keys: 'A',
    description: 'accept a built question (its review, under $DELTALENS_ANNOTATOR)',
    scopes: ['question'],
    match: ch('A'),
  },
  {
    id: 'rejectQuestion',
    keys: 'X',
    description: 'reject a built question, with a note: it leaves score, report and exports',
    scopes: ['question'],
    match: ch('X'),
  },
  {
    id: 'editQuestion',
    keys: 'E',
    description:
      'edit a built question in $EDITOR; changed choices are re-validated by running them before it is saved',
    scopes: ['question'],
    match: ch('E'),
  },
  {
    id: 'traces',
    keys: 't',
    description: "the traced pairs of the question's instance",
    scopes: ['question'],
    match: ch('t'),
  },
  MODEL_BINDING,
  RUNS_BINDING,
  AUDIT_BINDING,
];

export function command(s: QuestionScreen, id: string, view: QuestionView): Outcome<QuestionScreen> | null {
  if (MOVES.has(id)) return {screen: {...s, scroll: moveScroll(s.scroll, id, view)}};
  // Esc closes the prompt view first, back to the question
  if (id === 'back' && s.showPrompt) return {screen: {...s, showPrompt: false, scroll: 0}};
  if (id === 'toggleKey') return {screen: {...s, showKey: !s.showKey}};
  if (id === 'togglePrompt') return {screen: {...s, showPrompt: !s.showPrompt, scroll: 0}};
  if (id === 'nextModel') return {screen: {...s, model: nextModel(s.model, view)}};
  if (id === 'pickQaModel') {
    const current = view.qaModels.indexOf(s.qaModel ?? view.qaModels[0]!);
    return {
      picker: {
        purpose: 'qaModel',
        title: 'Re-score with which QA model?',
        items: view.qaModels.map(m => ({label: m === 'lexical' ? 'lexical (offline baseline)' : m, value: m})),
        initial: Math.max(0, current),
      },
    };
  }
  if (id === 'flagQuestion') {
    return {
      picker: {
        purpose: 'verdict',
        title: 'Flag this question as (then a note):',
        items: FLAG_VERDICTS.map(v => ({label: `${v} — ${FLAG_TEXT[v]}`, value: v})),
      },
    };
  }
  if (id === 'acceptQuestion' || id === 'rejectQuestion' || id === 'editQuestion') {
    if (!view.built)
      return {
        status: 'only questions made by questions build are accepted, rejected or edited here (f flags any question)',
      };
    if (id === 'acceptQuestion') return {intents: [{kind: 'review', question: s.id, action: 'accepted', note: ''}]};
    if (id === 'rejectQuestion') return {screen: {...s, reject: {note: ''}}};
    return {intents: [{kind: 'editQuestion', question: s.id}]};
  }
  if (!view.instance) return null;
  if (id === 'audit')
    return view.audits?.length
      ? {push: [{kind: 'audit', id: view.audits.at(-1)!, scroll: 0}]}
      : {intents: [{kind: 'startAudit', target: {instance: view.instance, agent: s.agent}}]};
  if (id === 'traces') return {push: [{kind: 'pairs', list: START, instance: view.instance}]};
  if (id === 'instance') return view.instance ? {push: [{kind: 'instance', id: view.instance, scroll: 0}]} : null;
  if (id === 'runs')
    return view.instanceRuns
      ? {push: [listScreen(withCondition('', 'instance', view.instance))]}
      : {status: `no runs of ${view.instance} in this database`};
  if (id === 'rescore' || id === 'rescoreFresh') {
    if (!view.explanation) return {status: 'no explanation of this agent for this instance to re-score (e writes one)'};
    if (view.explanation.text === null) return {status: 'this explanation has no text to re-score (e writes one)'};
    return {
      intents: [
        {
          kind: 'rescore',
          question: s.id,
          explanation: view.explanation.id,
          fresh: id === 'rescoreFresh',
          model: s.qaModel ?? null,
        },
      ],
    };
  }
  if (id === 'editExplanation')
    return {intents: [{kind: 'edit', instance: view.instance, agent: s.agent, text: view.explanation?.text ?? ''}]};
  return null;
}

export function picked(s: QuestionScreen, purpose: string, value: string): Outcome<QuestionScreen> {
  if (purpose === 'qaModel')
    return {
      screen: {...s, qaModel: value},
      status: `r and R now ask ${value}${value === 'lexical' ? ' (the offline baseline)' : ''}`,
    };
  return {screen: {...s, flag: {verdict: value, note: ''}}};
}

export const mode = (s: QuestionScreen): Scope | null => (s.flag || s.reject ? 'textField' : null);

/** The flag's (or the rejection's) note; Enter stores it (with the note, or without one). */
export function input(s: QuestionScreen, text: string, key: Key): Outcome<QuestionScreen> {
  if (s.reject) {
    const k = fieldKey(s.reject.note, text, key);
    if (!('done' in k)) return k.text === s.reject.note ? {} : {screen: {...s, reject: {note: k.text}}};
    if (k.done === 'cancel') return {screen: {...s, reject: null}};
    return {
      screen: {...s, reject: null},
      intents: [{kind: 'review', question: s.id, action: 'rejected', note: s.reject.note.trim()}],
    };
  }
  const flag = s.flag!;
  const k = fieldKey(flag.note, text, key);
  if (!('done' in k)) return k.text === flag.note ? {} : {screen: {...s, flag: {...flag, note: k.text}}};
  if (k.done === 'cancel') return {screen: {...s, flag: null}};
  return {
    screen: {...s, flag: null},
    intents: [{kind: 'flag', question: s.id, verdict: flag.verdict, note: flag.note.trim()}],
  };
}

export const prompt = (s: QuestionScreen) =>
  s.reject
    ? fieldPrompt('reject: why (may be empty)', s.reject.note)
    : s.flag
      ? fieldPrompt(`flag ${s.flag.verdict}: note (may be empty)`, s.flag.note)
      : null;
