import {Box} from 'ink';
import {useMemo, useRef, useState} from 'react';
import type {AnnotationItem} from '../../../core/questions/annotation.js';
import type {BlindItem, ConflictItem} from '../../../services/annotation.js';
import {Header} from '../../components/frame.js';
import {hintText, useKeyQueue} from '../../keys.js';
import type {Theme} from '../../theme.js';
import {useTerminalSize} from '../../use-terminal-size.js';
import {ItemFrame, conflictLines, questionBlock} from '../annotate/item.js';
import {ANNOTATE_BINDINGS} from '../annotate/keys.js';
import {useItemViews, useQuitWhen} from '../annotate/screen.js';
import {ADJUDICATE_BINDINGS, reduceAdjudicate, startAdjudicate} from './keys.js';

interface AdjudicateData {
  adjudicator: string;
  label: string;
  items: ConflictItem[];
  view(item: AnnotationItem): BlindItem | null;
  save(item: AnnotationItem, letters: string[]): void;
  setNote(item: AnnotationItem, note: string): void;
}

export function AdjudicateApp({data, theme, onQuit}: {data: AdjudicateData; theme: Theme; onQuit?: () => void}) {
  const {columns, rows} = useTerminalSize();
  const width = Math.max(20, columns);
  const height = Math.max(8, rows - 1);
  const bodyHeight = height - 4;
  const [state, setState] = useState(startAdjudicate);
  const ref = useRef(state);
  const viewOf = useItemViews(data.view);
  useQuitWhen(state.quitting, onQuit);

  const context = (index: number) => {
    const c = data.items[index];
    const v = c ? viewOf(c.item) : null;
    return {
      choices: v ? v.choices.map(x => x.label) : null,
      need: v?.type === 'e2e_effect' ? 2 : 1,
      now: Date.now(),
      page: bodyHeight,
      items: data.items.length,
    };
  };
  useKeyQueue((input, key) => {
    const r = reduceAdjudicate(ref.current, input, key, context(ref.current.index));
    for (const intent of r.intents) {
      const item = data.items[intent.index]!.item;
      if (intent.kind === 'save') data.save(item, intent.letters);
      else data.setNote(item, intent.text);
    }
    ref.current = r.state;
    setState(r.state);
  });

  const s = state;
  const c = data.items[s.index];
  const v = c ? viewOf(c.item) : null;
  const lines = useMemo(() => (c && v ? conflictLines(c, v, width, s.showKey) : []), [c, v, width, s.showKey]);
  const fixed = useMemo(() => (v ? questionBlock(v, width) : []), [v, width]);
  const scroll = Math.min(s.scroll, Math.max(0, lines.length - 1));
  const hints = hintText([...ADJUDICATE_BINDINGS, ...ANNOTATE_BINDINGS], 'adjudicate', ' · ');
  const prompt = !c
    ? `No more conflicting items (${s.decided} decided in this session). q quits.`
    : s.phase === 'note'
      ? `final answer ${s.letters.join(' → ')} stored. Note (one line; Enter keeps it, Esc skips): ${s.note}▏`
      : `Final answer: press the letter${v?.type === 'e2e_effect' ? 's (before, after)' : ''} · ${hints}`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Header
        title={`adjudicate · ${data.adjudicator}`}
        source={`${data.label} · item ${Math.min(s.index + 1, data.items.length)} of ${data.items.length} · ${s.decided} decided`}
        width={width}
        theme={theme}
      />
      <ItemFrame
        view={v}
        missing={false}
        reading={lines}
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
