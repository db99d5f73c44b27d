import {Box, Text, useApp, useInput, useStdin} from 'ink';
import React, {useEffect, useMemo, useReducer, useRef, useState} from 'react';
import type {StepperModel, WatchValue} from '../services/stepper.js';
import {HelpOverlay, helpLines} from './components/help-overlay.js';
import {Header, StatusBar} from './components/frame.js';
import {TextView} from './components/text-view.js';
import {fit} from '../core/text/sanitize.js';
import type {ExplorerData} from './data.js';
import type {Scope} from './keymap.js';
import {ListHeader, TrajectoryRows} from './screens/trajectory-list.js';
import {IntentTimeline, StepRows, stepLines, TabBar, tabBarWidth, tabLines, TrajectoryTitle} from './screens/trajectory-view.js';
import {PairRows, PairsHeader, shortTest, TEST_COLUMN_WIDTH} from './screens/trace-pairs.js';
import {deltaLine, StepperBody, stepperTitle} from './screens/stepper.js';
import {AgentQuestionRows, BoardHeader, BoardRows, questionLines} from './screens/scores.js';
import {QUESTION_TYPES} from '../core/questions/model.js';
import {parseListFilter} from '../core/trajectory/list-filter.js';
import {LensLine, lensInfoLines, ptaLines, rankingLines} from './screens/lens.js';
import {agreementLines, flagLines} from './screens/agreement.js';
import {FLAG_KEYS} from './state.js';
import {editText} from '../services/editor.js';
import {initialState, reducer, type Extent, type State} from './state.js';
import type {Theme} from './theme.js';
import {useTerminalSize} from './use-terminal-size.js';

/** Case-insensitive search over display lines, for `/` in a text view. */
function findIn(lines: {text: string}[]): (text: string, from: number, dir: 1 | -1) => number {
  return (text, from, dir) => {
    const needle = text.toLowerCase();
    for (let i = from; i >= 0 && i < lines.length; i += dir) if (lines[i]!.text.toLowerCase().includes(needle)) return i;
    return -1;
  };
}

function countIn(lines: {text: string}[], text: string): number {
  const needle = text.toLowerCase();
  return lines.filter(l => l.text.toLowerCase().includes(needle)).length;
}

export interface AppProps {
  data: ExplorerData;
  theme: Theme;
  initial?: Partial<State>;
  /** Where y sends a copied text (default: the terminal's clipboard through OSC 52). */
  clipboard?: (text: string) => void;
  /** Called once when the user quits, after the reducer decided to. */
  onQuit?: () => void;
}

/**
 * The explorer: header, body, status bar. The root frame is one row shorter than the
 * terminal (a full-height Ink frame clears the scrollback on every render). Only the visible
 * rows are queried and rendered.
 */
const emptySide = {present: false, waiting: true, fn: '', file: '', line: null, kind: null, locals: [], recorded: true, stack: [], source: null};

/** OSC 52: the terminal puts the text on the clipboard (tmux needs set-clipboard on). */
export function osc52(text: string): void {
  if (process.stdout.isTTY) process.stdout.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
}

export function App({data, theme, initial, onQuit, clipboard = osc52}: AppProps) {
  const {exit} = useApp();
  const {isRawModeSupported, setRawMode} = useStdin();
  const {columns, rows} = useTerminalSize();
  const [state, dispatch] = useReducer(reducer, {...initialState, ...initial});
  const width = Math.max(20, columns);
  const height = Math.max(6, rows - 1);
  const bodyHeight = height - 3; // header, column/tab line, status bar

  const screen = state.stack.at(-1);
  const scope: Scope = screen?.kind ?? 'list';
  const {list} = state;
  const parsedFilter = useMemo(() => parseListFilter(list.filter), [list.filter]);
  const query = useMemo(() => {
    const {unknown: _unknown, ...conditions} = parsedFilter;
    return {...conditions, sort: list.sort, descending: list.descending};
  }, [parsedFilter, list.sort, list.descending]);
  const total = useMemo(() => data.count(query), [data, query]);
  const rowsOnScreen = useMemo(
    () => (screen ? [] : data.list({...query, offset: list.top, limit: bodyHeight})),
    [data, query, list.top, bodyHeight, screen],
  );

  const trajScreen = screen && (screen.kind === 'trajectory' || screen.kind === 'step') ? screen : null;
  const trajectoryId = trajScreen?.id;
  const detail = useMemo(() => (trajectoryId === undefined ? null : data.trajectory(trajectoryId)), [data, trajectoryId]);
  const trajectoryScreen = screen?.kind === 'trajectory' ? screen : null;
  // bumped when a person corrects a stage, so the timeline and rows re-read it
  const [stageTick, setStageTick] = useState(0);
  const [status, setStatus] = useState<string | null>(null);
  const heads = useMemo(
    () => (trajectoryScreen && trajectoryScreen.tab === 'steps' && detail ? data.stepHeads(detail.id, trajectoryScreen.steps.top, bodyHeight - 2) : []),
    [data, detail, trajectoryScreen?.tab, trajectoryScreen?.steps.top, bodyHeight, stageTick],
  );
  const stages = useMemo(() => (detail ? data.stages(detail.id) : ''), [data, detail, stageTick]);
  const lens = useMemo(() => (detail ? data.lens(detail.id) : null), [data, detail]);
  const marks = useMemo(() => {
    const waste = new Set(lens?.score?.waste.flatMap(w => w.steps) ?? []);
    return {waste, divergence: lens?.score?.divergence ?? null};
  }, [lens]);
  const correction = trajScreen?.correct ?? null;
  useEffect(() => {
    if (!correction || !trajScreen) return;
    try {
      setStatus(data.setStage(trajScreen.id, correction.idx, correction.stage));
    } catch (error) {
      setStatus(`not stored: ${(error as Error).message}`);
    }
    setStageTick(t => t + 1);
  }, [correction?.seq]);
  const ptaScreen = screen?.kind === 'pta' ? screen : null;
  const ptaView = useMemo(() => (ptaScreen ? data.pta(ptaScreen.id) : null), [data, ptaScreen?.id, stageTick]);
  const ptaText = useMemo(() => (ptaView ? ptaLines(ptaView, width, Boolean(ptaScreen?.dag)) : []), [ptaView, width, ptaScreen?.dag]);
  const rankingScreen = screen?.kind === 'ranking' ? screen : null;
  const rankingText = useMemo(() => (rankingScreen ? rankingLines(data.rankings(), width) : []), [data, Boolean(rankingScreen), width]);
  const agreementScreen = screen?.kind === 'agreement' ? screen : null;
  const agreementText = useMemo(() => (agreementScreen ? agreementLines(data.agreement(), width) : []), [data, Boolean(agreementScreen), width]);
  const textLines = useMemo(() => {
    if (!detail || !trajScreen) return [];
    if (trajScreen.kind === 'step') {
      const step = data.step(detail.id, trajScreen.idx);
      return step ? stepLines(step, width) : [];
    }
    if (trajScreen.tab === 'steps') return [];
    const lines = tabLines(detail, trajScreen.tab, width);
    return trajScreen.tab === 'info' && lens ? [...lines, ...lensInfoLines(lens.score, lens.why, width)] : lines;
  }, [data, detail, lens, stageTick, trajScreen?.kind, trajScreen?.kind === 'step' ? trajScreen.idx : trajScreen?.kind === 'trajectory' ? trajScreen.tab : null, width]);

  const pairsOf = screen?.kind === 'pairs' ? (screen.trajectory ?? -1) : null;
  const pairsInstance = screen?.kind === 'pairs' ? (screen.instance ?? null) : null;
  // a trajectory's pairs: those traced from its patch, else (no such pair) its instance's
  const pairsView = useMemo(() => {
    if (pairsOf === null) return {rows: [], instance: null as string | null};
    if (pairsInstance !== null) return {rows: data.pairs().filter(p => p.instance === pairsInstance), instance: pairsInstance};
    if (pairsOf === -1) return {rows: data.pairs(), instance: null};
    const own = data.pairs(pairsOf);
    if (own.length) return {rows: own, instance: null};
    const instance = data.trajectory(pairsOf)?.instance ?? null;
    return {rows: instance ? data.pairs().filter(p => p.instance === instance) : [], instance};
  }, [data, pairsOf, pairsInstance]);
  const pairs = pairsView.rows;
  const stepper = screen?.kind === 'stepper' ? screen : null;
  const opened = useMemo(() => (stepper ? data.stepper(stepper.pair) : null), [data, stepper?.pair]);
  const model: StepperModel | null = opened && !('error' in opened) ? opened : null;
  const row = stepper?.row ?? 0;
  const sideViews = useMemo(() => (model && model.rows.length ? {b: model.view(row, 'b'), p: model.view(row, 'p')} : null), [model, row]);
  const [live, setLive] = useState<Map<string, WatchValue>>(new Map());
  const watchValues = useMemo(
    () =>
      model && stepper
        ? stepper.watches.map(expr => live.get(`${stepper.pair}\0${row}\0${expr}`) ?? model.watchRecorded(expr, row))
        : [],
    [model, stepper?.watches, row, live],
  );
  useEffect(() => {
    if (!model || !stepper || stepper.live === 0) return;
    const at = row;
    const exprs = stepper.watches;
    let cancelled = false;
    setLive(prev => new Map([...prev, ...exprs.map(e => [`${stepper.pair}\0${at}\0${e}`, {expr: e, source: 'unavailable', note: 'running deltatrace eval on both sides…'}] as const)]));
    void data.liveWatch(model, at, exprs).then(results => {
      if (cancelled) return;
      setLive(prev => new Map([...prev, ...results.map(r => [`${stepper.pair}\0${at}\0${r.expr}`, r] as const)]));
    });
    return () => {
      cancelled = true;
    };
  }, [stepper?.live]);
  const help = useMemo(() => (state.help ? helpLines(scope, width, theme) : []), [state.help, scope, width, theme]);

  // leaderboard, an agent's questions, a question
  const board = screen?.kind === 'board' ? screen : null;
  const agentQs = screen?.kind === 'agentQuestions' ? screen : null;
  const questionScreen = screen?.kind === 'question' ? screen : null;
  const models = useMemo(() => (board || agentQs || questionScreen ? data.models() : []), [data, Boolean(board || agentQs || questionScreen)]);
  // the model a screen shows when it has not chosen one: the report's default
  const shownDefault = useMemo(() => (board || agentQs || questionScreen ? data.report(null).model : null), [data, Boolean(board || agentQs || questionScreen)]);
  const [scoreTick, setScoreTick] = useState(0);
  // a status line belongs to the screen it was made on
  useEffect(() => setStatus(null), [state.stack.length, screen?.kind]);
  const report = useMemo(() => (board ? data.report(board.model) : null), [data, board?.model, scoreTick]);
  const agentRows = useMemo(() => (agentQs ? data.agentQuestions(agentQs.agent, agentQs.explanations, agentQs.model) : []), [data, agentQs?.agent, agentQs?.explanations, agentQs?.model, scoreTick]);
  const qView = useMemo(
    () => (questionScreen ? data.question(questionScreen.id, questionScreen.agent, questionScreen.explanations, questionScreen.explanationId) : null),
    [data, questionScreen?.id, questionScreen?.agent, questionScreen?.explanations, questionScreen?.explanationId, scoreTick],
  );
  const [flagTick, setFlagTick] = useState(0);
  const qLines = useMemo(
    () =>
      qView && questionScreen
        ? [...questionLines({...qView, status}, {showKey: questionScreen.showKey, showPrompt: questionScreen.showPrompt, width}), ...flagLines(data.flags(questionScreen.id), width)]
        : [],
    [qView, status, questionScreen?.showKey, questionScreen?.showPrompt, width, flagTick],
  );
  useEffect(() => {
    if (!questionScreen?.flagged) return;
    try {
      setStatus(data.setFlag(questionScreen.id, questionScreen.flagged.verdict, questionScreen.flagged.note));
    } catch (error) {
      setStatus(`not stored: ${(error as Error).message}`);
    }
    setFlagTick(t => t + 1);
  }, [questionScreen?.flagged?.seq]);
  useEffect(() => {
    if (!questionScreen || questionScreen.rescore === 0 || !qView?.explanation) return;
    const explanation = qView.explanation.id;
    if (qView.explanation.text === null) {
      setStatus('this explanation has no text to re-score (e writes one)');
      return;
    }
    let cancelled = false;
    setStatus('re-scoring…');
    void data
      .rescore(questionScreen.id, explanation, (done, total) => !cancelled && setStatus(`re-scoring: ${done}/${total}`), questionScreen.fresh)
      .then(r => {
        if (cancelled) return;
        const name = `${r.modelName}${r.modelName === 'lexical' ? ' (baseline)' : ''}`;
        setStatus(
          r.done === 0 && r.failed === 0 && r.cached > 0
            ? `${name}: all ${r.cached} samples are already stored — R asks the model 5 more times`
            : `${name}: ${r.done} new answers, ${r.cached} already stored, ${r.failed} failed${r.errors[0] ? ` (${r.errors[0]})` : ''}`,
        );
        setScoreTick(t => t + 1);
      })
      .catch((e: Error) => !cancelled && setStatus(`re-score failed: ${e.message}`));
    return () => {
      cancelled = true;
    };
  }, [questionScreen?.rescore]);
  useEffect(() => {
    if (!questionScreen || questionScreen.edit === 0 || !qView) return;
    const current = qView.explanation?.text ?? '';
    if (isRawModeSupported) setRawMode(false);
    const edited = editText(current);
    if (isRawModeSupported) setRawMode(true);
    if (edited.error) setStatus(edited.error);
    else if (edited.text === null) setStatus('unchanged: nothing saved');
    else {
      try {
        const id = data.saveCustom(qView.q.instance, questionScreen.agent, edited.text);
        setScoreTick(t => t + 1);
        dispatch({type: 'custom', explanationId: id});
        setStatus(`saved as custom explanation #${id}; r re-scores it`);
      } catch (error) {
        setStatus(`not stored: ${(error as Error).message}`);
      }
    }
  }, [questionScreen?.edit]);

  useEffect(() => {
    if (!state.copy) return;
    const text = copyText();
    if (!text) {
      setStatus('nothing to copy here');
      return;
    }
    clipboard(text);
    setStatus(`copied: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
  }, [state.copy]);
  /** What y copies on this screen: the thing under the cursor, as a person would paste it. */
  function copyText(): string | null {
    if (!screen) {
      const id = data.list({...query, offset: list.cursor, limit: 1})[0]?.id;
      return id === undefined ? null : (data.trajectory(id)?.sourcePath ?? null);
    }
    if (screen.kind === 'trajectory') {
      if (screen.tab !== 'steps') return detail?.sourcePath ?? null;
      return detail ? (data.step(detail.id, screen.steps.cursor)?.actionText ?? null) : null;
    }
    if (screen.kind === 'step') return detail ? (data.step(detail.id, screen.idx)?.actionText ?? null) : null;
    if (screen.kind === 'pairs') {
      const p = pairs[screen.list.cursor];
      return p ? `deltalens steps ${p.pair} --delta` : null;
    }
    if (screen.kind === 'stepper') {
      const side = sideViews?.b.present ? sideViews.b : sideViews?.p;
      return side?.present && side.line !== null ? `${side.file}:${side.line}` : null;
    }
    if (screen.kind === 'board') return report?.agents[screen.list.cursor]?.agent ?? null;
    if (screen.kind === 'agentQuestions') return agentRows[screen.list.cursor]?.question ?? null;
    if (screen.kind === 'question') return screen.id;
    return null;
  }

  const extent: Extent = state.help
    ? {total: help.length, page: bodyHeight}
    : !screen
      ? {total, page: bodyHeight, idAt: row => data.list({...query, offset: row, limit: 1})[0]?.id}
      : screen.kind === 'pairs'
        ? {total: pairs.length, page: bodyHeight, pairAt: r => pairs[r]?.pair}
      : screen.kind === 'board'
        ? {total: report?.agents.length ?? 0, page: bodyHeight, models, shownModel: shownDefault, agentAt: r => {
            const a = report?.agents[r];
            return a ? {agent: a.agent, explanations: a.explanations} : undefined;
          }}
      : screen.kind === 'agentQuestions'
        ? {total: agentRows.length, page: bodyHeight, models, shownModel: shownDefault, questionAt: r => agentRows[r]?.question}
      : screen.kind === 'question'
        ? {total: qLines.length, page: bodyHeight, models, shownModel: shownDefault, instance: qView?.q.instance}
      : screen.kind === 'stepper'
        ? {
            total: model?.rows.length ?? 0,
            page: bodyHeight,
            depthAt: r => model?.rows[r]?.depth ?? 0,
            deltaRow: model?.deltaRow ?? -1,
            findRow: (text, from) => model?.findRow(text, from) ?? -1,
          }
      : screen.kind === 'pta'
        ? {total: ptaText.length, page: bodyHeight}
      : screen.kind === 'ranking'
        ? {total: rankingText.length, page: bodyHeight}
      : screen.kind === 'agreement'
        ? {total: agreementText.length, page: bodyHeight}
      : screen.kind === 'trajectory' && screen.tab === 'steps'
        ? {total: detail?.steps ?? 0, page: bodyHeight - 2}
        : {total: textLines.length, page: bodyHeight, steps: detail?.steps ?? 0, findLine: findIn(textLines), matches: text => countIn(textLines, text)};
  // Keys read the latest sizes through a ref: a handler closure can be one render old.
  const extentRef = useRef(extent);
  extentRef.current = extent;

  useEffect(() => {
    if (!state.quitting) return;
    onQuit?.();
    exit();
  }, [state.quitting, exit, onQuit]);

  // Keys typed faster than a render (or sent by tmux) arrive as one chunk ("4G", "jj\r") or
  // as events closer together than a render. They are handled one per render: each key sees
  // the sizes of the screen the key before it left (after "4" switches to the Info tab, "G"
  // goes to the end of the Info text, not to the end of the previous tab's).
  type InputKey = Parameters<Parameters<typeof useInput>[0]>[1];
  const pending = useRef<{input: string; key: InputKey}[]>([]);
  // a key was dispatched and its render has not happened yet
  const unrendered = useRef(false);
  const [, rerender] = useReducer((x: number) => x + 1, 0);
  const send = (input: string, key: InputKey) => {
    unrendered.current = true;
    dispatch({type: 'key', input, key, extent: extentRef.current});
    // a key that changes nothing renders nothing: ask for the render that takes the next one
    rerender();
  };
  useEffect(() => {
    unrendered.current = false;
    const next = pending.current.shift();
    if (next) send(next.input, next.key);
  });
  useInput(
    (input, key) => {
      const keys = input.length > 1 && !key.ctrl && !key.meta && !/[\x1b]/.test(input) ? [...input].map(char => ({input: char === '\r' ? '' : char, key: {...key, return: char === '\r'}})) : [{input, key}];
      pending.current.push(...keys);
      if (!unrendered.current && pending.current.length === keys.length) {
        const first = pending.current.shift()!;
        send(first.input, first.key);
      }
    },
    {isActive: Boolean(isRawModeSupported)},
  );

  let title: string;
  let subheader: React.ReactNode;
  let body: React.ReactNode;
  if (state.help) {
    title = 'Help';
    subheader = <Text bold>Keys</Text>;
    body = <HelpOverlay lines={help} scroll={state.helpScroll} height={bodyHeight} />;
  } else if (!screen) {
    title = `Trajectories (${total}${list.filter ? ` matching "${list.filter}"` : ''})${parsedFilter.unknown.length ? ` · not a condition: ${parsedFilter.unknown.join(' ')} (resolved: tier: agent:)` : ''}`;
    subheader = <ListHeader width={width} sort={list.sort} descending={list.descending} theme={theme} />;
    body = <TrajectoryRows rows={rowsOnScreen} top={list.top} cursor={list.cursor} width={width} height={bodyHeight} theme={theme} />;
  } else if (screen.kind === 'board') {
    const typeCounts = (report?.agents ?? []).map(a => QUESTION_TYPES.filter(t => a.types[t].score !== null).length);
    const partial = typeCounts.some(n => n < Math.max(...typeCounts)) ? ' · * scored on fewer question types' : '';
    title = `Leaderboard · ${report?.model ?? 'no answers'}${report?.model === 'lexical' ? ' (baseline)' : ''}${partial}`;
    subheader = <BoardHeader width={width} theme={theme} />;
    body = <BoardRows rows={report?.agents ?? []} top={screen.list.top} cursor={screen.list.cursor} width={width} height={bodyHeight} theme={theme} />;
  } else if (screen.kind === 'agentQuestions') {
    title = `${screen.agent} (${screen.explanations}) · ${screen.model ?? data.report(null).model ?? ''}`;
    subheader = <Text color={theme.muted}> type          right  samples        question</Text>;
    body = <AgentQuestionRows rows={agentRows} top={screen.list.top} cursor={screen.list.cursor} width={width} height={bodyHeight} theme={theme} />;
  } else if (screen.kind === 'question') {
    title = `Question · ${screen.id}`;
    subheader = (
      <Text wrap="truncate-end">
        <Text bold>{qView ? `${qView.q.type} · ${qView.q.instance}` : 'not found'}</Text>
        <Text color={theme.muted}> · explanation of {screen.agent} ({screen.explanationId !== null ? 'custom' : screen.explanations})</Text>
      </Text>
    );
    body = qView ? <TextView lines={qLines} scroll={screen.scroll} height={bodyHeight} theme={theme} /> : <Text color={theme.bad}>No question {screen.id}. Esc goes back.</Text>;
  } else if (screen.kind === 'pairs') {
    const selected = pairs[screen.list.cursor];
    // narrow: the test column is left out, so the title names the selected pair's test
    const test = selected && width < TEST_COLUMN_WIDTH ? ` · #${selected.pair} runs ${shortTest(selected.test, 60)}` : '';
    const scope = screen.instance !== undefined ? ` of ${screen.instance}` : screen.trajectory === undefined ? '' : pairsView.instance ? ` of ${pairsView.instance} (none from #${screen.trajectory}'s own patch)` : ` of trajectory #${screen.trajectory}`;
    title = `Traced pairs (${pairs.length})${scope}${test}`;
    subheader = <PairsHeader width={width} theme={theme} />;
    body = <PairRows rows={pairs} top={screen.list.top} cursor={screen.list.cursor} width={width} height={bodyHeight} theme={theme} />;
  } else if (screen.kind === 'stepper') {
    title = `Trace stepper · pair #${screen.pair}`;
    if (!model) {
      subheader = <Text> </Text>;
      body = <Text color={theme.bad}>{opened && 'error' in opened ? opened.error : 'not found'}. Esc goes back.</Text>;
    } else {
      subheader = (
        <Text wrap="truncate-end">
          <Text bold wrap="truncate-end">{fit(stepperTitle(model), width)}</Text>
          <Text color={theme.muted}> · {deltaLine(model)}</Text>
        </Text>
      );
      body = <StepperBody model={model} screen={screen} view={sideViews ?? {b: emptySide, p: emptySide}} watches={watchValues} width={width} height={bodyHeight} theme={theme} />;
    }
  } else if (screen.kind === 'pta') {
    title = `PTA reference · trajectory #${screen.id}`;
    subheader = <Text wrap="truncate-end" bold>{ptaView ? `${ptaView.instance} · ${ptaView.agent}` : 'not found'}</Text>;
    body = ptaView ? <TextView lines={ptaText} scroll={screen.scroll} height={bodyHeight} theme={theme} /> : <Text color={theme.bad}>Trajectory #{screen.id} is not in the database. Esc goes back.</Text>;
  } else if (screen.kind === 'agreement') {
    title = "Agreement · people's labels";
    subheader = <Text color={theme.muted}>Cohen's κ per pair, Fleiss' κ, people vs QA models and vs adjudicated answers</Text>;
    body = <TextView lines={agreementText} scroll={screen.scroll} height={bodyHeight} theme={theme} />;
  } else if (screen.kind === 'ranking') {
    title = 'Lens rankings · pass rate vs process quality';
    subheader = <Text color={theme.muted}>AgentLens: the same runs ranked two ways</Text>;
    body = <TextView lines={rankingText} scroll={screen.scroll} height={bodyHeight} theme={theme} />;
  } else if (!detail) {
    title = 'Trajectory';
    subheader = <Text> </Text>;
    body = <Text color={theme.bad}>Trajectory #{trajScreen?.id} is no longer in the database. Esc goes back.</Text>;
  } else if (screen.kind === 'trajectory') {
    title = `Trajectory #${detail.id}`;
    subheader = (
      <Box width={width}>
        <Box width={Math.max(10, width - tabBarWidth(width))}>
          <TrajectoryTitle t={detail} width={Math.max(10, width - tabBarWidth(width) - 1)} theme={theme} />
        </Box>
        <TabBar tab={screen.tab} width={width} theme={theme} />
      </Box>
    );
    body =
      screen.tab === 'steps' ? (
        <Box flexDirection="column" height={bodyHeight}>
          <IntentTimeline stages={stages} width={width} theme={theme} waste={marks.waste} divergence={marks.divergence} />
          <LensLine score={lens?.score ?? null} why={lens?.why ?? ''} width={width} theme={theme} />
          <StepRows heads={heads} top={screen.steps.top} cursor={screen.steps.cursor} width={width} height={bodyHeight - 2} theme={theme} waste={marks.waste} divergence={marks.divergence} />
        </Box>
      ) : (
        <TextView lines={textLines} scroll={screen.scroll} height={bodyHeight} theme={theme} />
      );
  } else {
    title = `Trajectory #${detail.id} · step ${screen.idx + 1} of ${detail.steps}`;
    subheader = <TrajectoryTitle t={detail} width={width} theme={theme} />;
    body = <TextView lines={textLines} scroll={screen.scroll} height={bodyHeight} theme={theme} />;
  }

  const prompting = trajScreen?.stagePrompt ?? null;
  const finding = trajScreen?.find ?? null;
  const flagging = questionScreen?.flag ?? null;
  const filterLine =
    list.editingFilter && !screen && !state.help
      ? `filter: ${list.filter}▏  Enter keep · Esc clear`
      : flagging && !state.help
        ? flagging.phase === 'verdict'
          ? `flag as: ${FLAG_KEYS.map((v, i) => `${i + 1} ${v}`).join(' · ')} · Esc cancel`
          : `flag ${flagging.verdict}: note (Enter saves, Esc cancels): ${flagging.note}▏`
      : prompting !== null && !state.help
        ? `stage for step ${prompting + 1}: e explore · i implement · v verify · o orchestrate · x remove yours · Esc cancel`
      : finding && !state.help
        ? finding.editing
          ? `find: ${finding.text}▏  Enter find · Esc cancel`
          : (finding.message ?? '')
      : status && !questionScreen && !state.help
        ? status
      : stepper?.input && !state.help
        ? `${stepper.input.mode === 'search' ? 'find variable or function' : 'watch expression'}: ${stepper.input.text}▏  Enter ${stepper.input.mode === 'search' ? 'find' : 'add'} · Esc cancel`
        : undefined;
  const position = trajScreen && !state.help && (trajScreen.kind === 'step' || trajScreen.tab !== 'steps') && textLines.length > bodyHeight
    ? `  ${Math.min(100, Math.round(((trajScreen.scroll + bodyHeight) / textLines.length) * 100))}%`
    : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header title={title} source={data.label + position} width={width} theme={theme} />
      {subheader}
      {body}
      <StatusBar scope={scope} width={width} theme={theme} override={filterLine} />
    </Box>
  );
}
