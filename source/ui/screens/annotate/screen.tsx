import {Box, useApp} from 'ink';
import {useEffect, useMemo, useReducer, useRef, useState} from 'react';
import {itemKey as keyOfItem, type AnnotationItem} from '../../../core/questions/annotation.js';
import type {BlindItem} from '../../../services/annotation.js';
import {Header} from '../../components/frame.js';
import {hintText, useKeyQueue} from '../../keys.js';
import type {Theme} from '../../theme.js';
import {useTerminalSize} from '../../use-terminal-size.js';
import {ItemFrame, questionBlock, readingLines} from './item.js';
import {ANNOTATE_BINDINGS, annotatePrompt, reduceAnnotate, startAnnotate} from './keys.js';

interface AnnotateData {
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

/** The shown items, read once each (a render every second and every key would read them again). */
export function useItemViews(
  read: (item: AnnotationItem) => BlindItem | null,
): (item: AnnotationItem) => BlindItem | null {
  const cache = useRef(new Map<string, BlindItem | null>());
  return item => {
    const key = keyOfItem(item);
    if (!cache.current.has(key)) cache.current.set(key, read(item));
    return cache.current.get(key)!;
  };
}

/** Leaves Ink after the render that showed the last state, telling the caller first. */
export function useQuitWhen(quitting: boolean, onQuit?: () => void): void {
  const {exit} = useApp();
  useEffect(() => {
    if (!quitting) return;
    onQuit?.();
    exit();
  }, [quitting]);
}

export const clock = (seconds: number) => {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

/** annotate: blind labelling. It never shows the answer key, a model's answer or anyone else's label. */
export function AnnotateApp({data, theme, onQuit}: {data: AnnotateData; theme: Theme; onQuit?: () => void}) {
  const {columns, rows} = useTerminalSize();
  const width = Math.max(20, columns);
  const height = Math.max(8, rows - 1);
  const bodyHeight = height - 4;
  const now = data.now ?? (() => Date.now());
  const [state, setState] = useState(() => startAnnotate(now()));
  // keys are reduced against the latest state, and the store written in key order
  const ref = useRef(state);
  const viewOf = useItemViews(data.view);
  const [, tick] = useReducer((x: number) => x + 1, 0);
  useEffect(() => {
    const t = setInterval(tick, 1000);
    return () => clearInterval(t);
  }, []);
  useQuitWhen(state.quitting, onQuit);

  const context = (index: number) => {
    const item = data.queue[index];
    const v = item ? viewOf(item) : null;
    return {
      choices: v ? v.choices.map(c => c.label) : null,
      need: v?.type === 'e2e_effect' ? 2 : 1,
      now: now(),
      page: bodyHeight,
    };
  };
  useKeyQueue((input, key) => {
    const before = ref.current;
    const r = reduceAnnotate(before, input, key, context(before.index));
    let next = r.state;
    for (const intent of r.intents) {
      if (intent.kind === 'save')
        next = {
          ...next,
          saved: [
            ...next.saved,
            {
              id: data.save(data.queue[intent.index]!, intent.letters, intent.seconds),
              index: intent.index,
              letters: intent.letters,
            },
          ],
        };
      else if (intent.kind === 'rationale') data.setRationale(intent.id, intent.text);
      else data.remove(intent.id);
    }
    ref.current = next;
    setState(next);
  });

  const s = state;
  const item = data.queue[s.index];
  const view = item ? viewOf(item) : null;
  const reading = useMemo(() => (view ? readingLines(view, width) : []), [view, width]);
  const fixed = useMemo(() => (view ? questionBlock(view, width) : []), [view, width]);
  const scroll = Math.min(s.scroll, Math.max(0, reading.length - 1));
  const total = data.queue.length;
  const {choices, need} = context(s.index);
  const prompt = annotatePrompt(s, {
    total,
    choices: item ? choices : null,
    need,
    hints: hintText(ANNOTATE_BINDINGS, 'annotate', ' · '),
  });
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header
        title={`annotate · ${data.annotator}`}
        source={`${data.label} · item ${Math.min(s.index + 1, total)} of ${total} · ${s.saved.length} labelled · ${item ? clock((now() - s.startedAt) / 1000) : ''}`}
        width={width}
        theme={theme}
      />
      <ItemFrame
        view={view}
        missing={Boolean(item)}
        reading={reading}
        fixed={fixed}
        scroll={scroll}
        height={bodyHeight}
        message={s.message}
        prompt={prompt}
        theme={theme}
      />
    </Box>
  );
}
