/**
 * Labelling and adjudication screens (ExplainBench §5.4, Fig. 4). Keyboard-first: one item at a
 * time, answered with the choice letters (two for end-to-end effect: before, after), then an
 * optional one-line note. A label is stored the moment its letters are complete — there is no
 * save step to forget. The annotation screen is blind: it never shows the answer key, a model's
 * answer or anyone else's label.
 *
 * Keys are handled against a ref that is updated synchronously, so keys that arrive faster than
 * a render each see the state the previous one left, and the store is written in key order.
 */
import {Box, Text, useApp, useInput, useStdin} from 'ink';
import React, {useEffect, useReducer, useRef, useState} from 'react';
import type {AnnotationItem} from '../core/questions/annotation.js';
import {itemKey, labelOf} from '../core/questions/annotation.js';
import {wrapLines} from '../core/text/sanitize.js';
import type {BlindItem, ConflictItem} from '../services/annotation.js';
import {Header} from './components/frame.js';
import {TextView, textBlock, type DisplayLine} from './components/text-view.js';
import {editLine} from './line-edit.js';
import type {Theme} from './theme.js';
import {useTerminalSize} from './use-terminal-size.js';

export interface AnnotateData {
  annotator: string;
  label: string;
  queue: AnnotationItem[];
  view(item: AnnotationItem): BlindItem | null;
  /** stores the label, returns its id */
  save(item: AnnotationItem, letters: string[], seconds: number): number;
  setRationale(id: number, text: string): void;
  remove(id: number): void;
  now?: () => number;
}

interface Machine {
  index: number;
  /** letters typed so far for this item */
  letters: string[];
  phase: 'answer' | 'note';
  note: string;
  /** the label just saved (for its note) and every label of this session, for undo */
  saved: {id: number; index: number; letters: string[]}[];
  startedAt: number;
  scroll: number;
  message: string | null;
}

/** Context entries the question points into (a local question's `line`): kept on screen with the
 * question, not in the reading pane that scrolls away. */
const PINNED_CONTEXT = new Set(['line']);

export function contextLines(context: Record<string, unknown>, width: number, pinned = false): DisplayLine[] {
  const out: DisplayLine[] = [];
  for (const [k, v] of Object.entries(context)) {
    if (PINNED_CONTEXT.has(k) !== pinned) continue;
    const text = typeof v === 'string' ? v : JSON.stringify(v, null, 1);
    out.push(...textBlock(`${k}: ${text}`, width, k.includes('code') || k.includes('patch') || k.includes('line') ? 'python' : 'plain'));
  }
  return out.length || pinned ? out : [{text: '(none)', role: 'muted'}];
}

/** What a person reads to answer (scrolls): the explanation and the context. */
export function readingLines(v: BlindItem, width: number): DisplayLine[] {
  return [
    {text: `Explanation (${v.agent ?? 'unknown agent'}'s)`, role: 'heading'},
    ...wrapLines(v.explanationText || '(empty)', width).map(text => ({text})),
    {text: ''},
    {text: 'Context', role: 'heading'},
    ...contextLines(v.context, width),
  ];
}

/** The question and its choices (always on screen, under the reading). */
export function questionBlock(v: BlindItem, width: number): DisplayLine[] {
  return [{text: `Question (${v.type})`, role: 'heading'}, ...contextLines(v.context, width, true), ...textBlock(v.text, width), ...v.choices.flatMap(c => textBlock(`  ${c.label}. ${c.text}`, width))];
}

/** The item as shown to the person labelling it: explanation, context, question, choices. Nothing else. */
export function blindLines(v: BlindItem, width: number): DisplayLine[] {
  return [...readingLines(v, width), {text: ''}, ...questionBlock(v, width)];
}

/** A reading pane that scrolls above a fixed question block, within `height` rows. */
function ItemView({reading, fixed, scroll, height, theme}: {reading: DisplayLine[]; fixed: DisplayLine[]; scroll: number; height: number; theme: Theme}) {
  const fixedRows = Math.min(fixed.length, Math.max(3, height - 4));
  const readRows = Math.max(1, height - fixedRows - 1);
  const more = reading.length > scroll + readRows;
  return (
    <Box flexDirection="column" height={height}>
      <TextView lines={reading} scroll={scroll} height={readRows} theme={theme} />
      <Text color={theme.muted} wrap="truncate-end">
        {more ? `── ${reading.length - scroll - readRows} more line(s): PgDn / j ──` : '─'.repeat(20)}
      </Text>
      <TextView lines={fixed} scroll={0} height={fixedRows} theme={theme} />
    </Box>
  );
}

type InkKey = Parameters<Parameters<typeof useInput>[0]>[1];

/** A one-line text field: the text after this key (Backspace deletes, controls are ignored). */
/** Under the header: which item, the item (reading pane over the question block), a message line and the prompt. */
function ItemFrame(p: {view: BlindItem | null; missing: boolean; reading: DisplayLine[]; fixed: DisplayLine[]; scroll: number; height: number; message: string | null; prompt: string; theme: Theme}) {
  return (
    <>
      <Text wrap="truncate-end" bold>
        {p.view ? `${p.view.instance} · ${p.view.question} · explanation #${p.view.explanation}` : p.missing ? 'this item is no longer in the database' : ' '}
      </Text>
      {p.view ? <ItemView reading={p.reading} fixed={p.fixed} scroll={p.scroll} height={p.height} theme={p.theme} /> : <Box height={p.height} />}
      <Text wrap="truncate-end" color={p.theme.warn}>
        {p.message ?? ' '}
      </Text>
      <Text wrap="truncate-end" inverse={!p.theme.color} color={p.theme.accent}>
        {p.prompt}
      </Text>
    </>
  );
}

/**
 * Keys through a handler that reads and writes refs synchronously: a chunk of keys (fast typing,
 * paste, tmux) is split and each key handled in order; one render after the chunk.
 */
function useKeys(handle: (input: string, key: InkKey) => void) {
  const {isRawModeSupported} = useStdin();
  const [, render] = useReducer((x: number) => x + 1, 0);
  useInput(
    (input, key) => {
      for (const char of input.length > 1 && !/\x1b/.test(input) ? [...input] : [input]) handle(char === '\r' ? '' : char, char === '\r' ? {...key, return: true} : key);
      render();
    },
    {isActive: Boolean(isRawModeSupported)},
  );
}

/** The shown items, read once each (a render every second and every key would read them again). */
function useItemViews(read: (item: AnnotationItem) => BlindItem | null): (item: AnnotationItem) => BlindItem | null {
  const cache = useRef(new Map<string, BlindItem | null>());
  return item => {
    const key = itemKey(item);
    if (!cache.current.has(key)) cache.current.set(key, read(item));
    return cache.current.get(key)!;
  };
}

/** quit(): tells the caller, then leaves Ink (after the render that asked). */
function useQuit(onQuit?: () => void): () => void {
  const {exit} = useApp();
  const [quitting, setQuitting] = useState(false);
  useEffect(() => {
    if (!quitting) return;
    onQuit?.();
    exit();
  }, [quitting]);
  return () => setQuitting(true);
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function AnnotateApp({data, theme, onQuit}: {data: AnnotateData; theme: Theme; onQuit?: () => void}) {
  const {columns, rows} = useTerminalSize();
  const width = Math.max(20, columns);
  const height = Math.max(8, rows - 1);
  const now = data.now ?? (() => Date.now());
  const m = useRef<Machine>({index: 0, letters: [], phase: 'answer', note: '', saved: [], startedAt: now(), scroll: 0, message: null});
  const quit = useQuit(onQuit);
  const viewOf = useItemViews(data.view);
  const [, tick] = useReducer((x: number) => x + 1, 0);
  useEffect(() => {
    const t = setInterval(tick, 1000);
    return () => clearInterval(t);
  }, []);

  const item = data.queue[m.current.index];
  const view = item ? viewOf(item) : null;
  const bodyHeight = height - 4;

  useKeys((input, key) => handle(input, key));

  function handle(input: string, key: InkKey) {
    const s = m.current;
    const current = data.queue[s.index];
    if (key.ctrl && input === 'c') return quit();
    if (s.phase === 'note') {
      if (key.return || key.escape) {
        const last = s.saved.at(-1)!;
        if (key.return && s.note.trim()) data.setRationale(last.id, s.note.trim());
        s.message = `saved ${last.letters.join(' → ')}${key.return && s.note.trim() ? ' with its rationale' : ''}`;
        s.phase = 'answer';
        s.note = '';
        s.index += 1;
        s.letters = [];
        s.scroll = 0;
        s.startedAt = now();
        return;
      }
      s.note = editLine(s.note, input, key);
      return;
    }
    if (input === 'q') return quit();
    if (input === 'u') {
      const last = s.saved.pop();
      if (!last) {
        s.message = 'nothing to undo in this session';
        return;
      }
      data.remove(last.id);
      s.index = last.index;
      s.letters = [];
      s.scroll = 0;
      s.startedAt = now();
      s.message = `undone: the label ${last.letters.join(' → ')} on this item is deleted`;
      return;
    }
    if (key.pageDown || input === ' ' || key.downArrow || input === 'j') {
      s.scroll += key.downArrow || input === 'j' ? 1 : bodyHeight;
      return;
    }
    if (key.pageUp || key.upArrow || input === 'k') {
      s.scroll = Math.max(0, s.scroll - (key.upArrow || input === 'k' ? 1 : bodyHeight));
      return;
    }
    // g / G: the top / the end of the reading (Home / End too, for an item with a choice G)
    const choiceG = current ? Boolean(viewOf(current)?.choices.some(c => c.label === 'G')) : false;
    if (key.home || (input === 'g' && !choiceG)) {
      s.scroll = 0;
      return;
    }
    if (key.end || (input === 'G' && !choiceG)) {
      s.scroll = Number.MAX_SAFE_INTEGER; // clamped to the last line when drawn
      return;
    }
    if (key.escape || key.backspace) {
      s.letters = [];
      return;
    }
    if (!current) return;
    const v = viewOf(current);
    const letter = input.toUpperCase();
    if (!v || !v.choices.some(c => c.label === letter)) {
      if (input) s.message = `"${input}" is not a choice here (${v?.choices.map(c => c.label).join(', ')})`;
      return;
    }
    s.letters.push(letter);
    const need = v.type === 'e2e_effect' ? 2 : 1;
    if (s.letters.length < need) {
      s.message = null;
      return;
    }
    const id = data.save(current, s.letters, (now() - s.startedAt) / 1000);
    s.saved.push({id, index: s.index, letters: [...s.letters]});
    s.phase = 'note';
    s.message = null;
  }

  const s = m.current;
  const reading = view ? readingLines(view, width) : [];
  const fixed = view ? questionBlock(view, width) : [];
  const maxScroll = Math.max(0, reading.length - 1);
  if (s.scroll > maxScroll) s.scroll = maxScroll;
  const total = data.queue.length;
  const done = s.saved.length;
  const need = view?.type === 'e2e_effect' ? 2 : 1;
  const prompt =
    !item
      ? total === 0
        ? 'No items in this queue: nothing matches its --queue, --type and --agent (or no explanation has a question yet). q quits.'
        : `All ${total} items of this queue are labelled (${done} in this session). q quits.`
      : s.phase === 'note'
        ? `saved ${s.letters.join(' → ')}. Rationale (one line; Enter keeps it, Esc skips): ${s.note}▏`
        : need === 2
          ? `Letter for BEFORE the patch${s.letters[0] ? `: ${s.letters[0]} · now AFTER` : ''} (${view?.choices.map(c => c.label).join(' ')}) · Esc restart · u undo last · q quit`
          : `Press the letter of your answer (${view?.choices.map(c => c.label).join(' ')}) · u undo last · PgDn scroll · q quit`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header title={`annotate · ${data.annotator}`} source={`${data.label} · item ${Math.min(s.index + 1, total)} of ${total} · ${done} labelled · ${item ? clock((now() - s.startedAt) / 1000) : ''}`} width={width} theme={theme} />
      <ItemFrame view={view} missing={Boolean(item)} reading={reading} fixed={fixed} scroll={s.scroll} height={bodyHeight} message={s.message} prompt={prompt} theme={theme} />
    </Box>
  );
}

export interface AdjudicateData {
  adjudicator: string;
  label: string;
  items: ConflictItem[];
  view(item: AnnotationItem): BlindItem | null;
  save(item: AnnotationItem, letters: string[]): void;
  setNote(item: AnnotationItem, note: string): void;
}

/** Every label with its rationale and every model's answers (Fig. 4); the key only on v. */
export function conflictLines(c: ConflictItem, v: BlindItem, width: number, showKey: boolean): DisplayLine[] {
  const lines: DisplayLine[] = [{text: `People's labels (${c.labels.length})`, role: 'heading'}];
  for (const l of c.labels) lines.push(...textBlock(`  ${l.annotator.padEnd(14)} ${labelOf(l.letters).padEnd(5)} ${l.rationale ? `“${l.rationale}”` : '(no rationale)'}${l.seconds !== null ? ` · ${Math.round(l.seconds)} s` : ''}`, width));
  lines.push({text: ''}, {text: 'QA models', role: 'heading'});
  if (!c.models.length) lines.push({text: '  no model answers stored for this item', role: 'muted'});
  for (const x of c.models) lines.push(...textBlock(`  ${x.model.padEnd(24)} majority ${x.majority ?? 'tie'} · samples ${x.samples.join(' ')}`, width));
  lines.push({text: ''}, showKey ? {text: `Answer key: ${c.key.join(' → ')}`, role: 'heading'} : {text: 'Answer key hidden (v shows it)', role: 'muted'});
  if (c.adjudicated) lines.push({text: `Adjudicated by ${c.adjudicated.adjudicator}: ${c.adjudicated.letters.join(' → ')}${c.adjudicated.note ? ` — ${c.adjudicated.note}` : ''}`, role: 'muted'});
  return [...lines, {text: ''}, ...readingLines(v, width)];
}

export function AdjudicateApp({data, theme, onQuit}: {data: AdjudicateData; theme: Theme; onQuit?: () => void}) {
  const {columns, rows} = useTerminalSize();
  const width = Math.max(20, columns);
  const height = Math.max(8, rows - 1);
  const st = useRef({index: 0, letters: [] as string[], phase: 'answer' as 'answer' | 'note', note: '', scroll: 0, showKey: false, decided: 0, message: null as string | null});
  const quit = useQuit(onQuit);
  const viewOf = useItemViews(data.view);
  const bodyHeight = height - 4;
  const c = data.items[st.current.index];
  const v = c ? viewOf(c.item) : null;

  useKeys((input, key) => handle(input, key));

  function handle(input: string, key: InkKey) {
    const s = st.current;
    const cur = data.items[s.index];
    if (key.ctrl && input === 'c') return quit();
    if (s.phase === 'note') {
      if (key.return || key.escape) {
        if (key.return && s.note.trim() && cur) data.setNote(cur.item, s.note.trim());
        s.message = `final answer ${s.letters.join(' → ')} stored${key.return && s.note.trim() ? ' with its note' : ''}`;
        s.phase = 'answer';
        s.note = '';
        s.letters = [];
        s.index += 1;
        s.scroll = 0;
        return;
      }
      s.note = editLine(s.note, input, key);
      return;
    }
    if (input === 'q') return quit();
    if (input === 'v') return void (s.showKey = !s.showKey);
    if (input === 'n' || input === 'p') {
      s.index = Math.min(Math.max(0, s.index + (input === 'n' ? 1 : -1)), data.items.length);
      s.letters = [];
      s.scroll = 0;
      return;
    }
    if (key.pageDown || input === ' ' || key.downArrow || input === 'j') return void (s.scroll += key.downArrow || input === 'j' ? 1 : bodyHeight);
    if (key.pageUp || key.upArrow || input === 'k') return void (s.scroll = Math.max(0, s.scroll - (key.upArrow || input === 'k' ? 1 : bodyHeight)));
    if (key.escape || key.backspace) return void (s.letters = []);
    if (!cur) return;
    const view = viewOf(cur.item);
    const letter = input.toUpperCase();
    if (!view || !view.choices.some(x => x.label === letter)) {
      if (input) s.message = `"${input}" is not a choice here`;
      return;
    }
    s.letters.push(letter);
    if (s.letters.length < (view.type === 'e2e_effect' ? 2 : 1)) return;
    data.save(cur.item, s.letters);
    s.decided += 1;
    s.phase = 'note';
    s.message = null;
  }

  const s = st.current;
  const lines = c && v ? conflictLines(c, v, width, s.showKey) : [];
  const fixed = v ? questionBlock(v, width) : [];
  s.scroll = Math.min(s.scroll, Math.max(0, lines.length - 1));
  const prompt = !c
    ? `No more conflicting items (${s.decided} decided in this session). q quits.`
    : s.phase === 'note'
      ? `final answer ${s.letters.join(' → ')} stored. Note (one line; Enter keeps it, Esc skips): ${s.note}▏`
      : `Final answer: press the letter${v?.type === 'e2e_effect' ? 's (before, after)' : ''} · v key · n/p next/previous item · PgDn scroll · q quit`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header title={`adjudicate · ${data.adjudicator}`} source={`${data.label} · item ${Math.min(s.index + 1, data.items.length)} of ${data.items.length} · ${s.decided} decided`} width={width} theme={theme} />
      <ItemFrame view={v} missing={false} reading={lines} fixed={fixed} scroll={s.scroll} height={bodyHeight} message={s.message} prompt={prompt} theme={theme} />
    </Box>
  );
}
