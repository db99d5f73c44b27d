import {Box, Text, useApp, useStdin} from 'ink';
import {useEffect, useMemo, useRef, useState} from 'react';
import {Header, StatusBar} from './components/frame.js';
import {HelpOverlay, helpLines} from './help.js';
import type {ExplorerData} from './data/index.js';
import {runIntent, type RunnerContext} from './intents.js';
import {hintText, useKeyQueue} from './keys.js';
import {defOf, type Screen} from './screens/index.js';
import {PICKER_BINDINGS, PickerView} from './screens/picker.js';
import type {Env, View} from './screens/types.js';
import {initialState, reduce, type Action} from './state.js';
import type {Theme} from './theme.js';
import type {BackgroundBuild} from '../services/demo.js';
import {useTerminalSize} from './use-terminal-size.js';

export interface AppProps {
  data: ExplorerData;
  theme: Theme;
  /** the screens to open on (a deep link); the trajectory list is put under them */
  initial?: {stack?: Screen[]};
  /** Where y sends a copied text (default: the terminal's clipboard through OSC 52). */
  clipboard?: (text: string) => void;
  /** Called once when the user quits, after the reducer decided to. */
  onQuit?: () => void;
  /** How a build running beside the explorer is going (the demo's traced part): polled each
   * second, its progress shown in the status line, the screens re-read as it goes. */
  background?: () => BackgroundBuild;
}

/** How long the line saying the background build ended stays in the status line. */
const BACKGROUND_DONE_MS = 10_000;

/** OSC 52: the terminal puts the text on the clipboard (tmux needs set-clipboard on). */
function osc52(text: string): void {
  if (process.stdout.isTTY) process.stdout.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
}

/**
 * The explorer's router: it keeps the screen stack, hands each key to the screen on top (or to
 * help, or a picker), runs the intents that come back, and draws the top screen. The root frame
 * is one row shorter than the terminal (a full-height Ink frame clears the scrollback on every
 * render). What a screen shows, reads and does is in its folder under ui/screens/.
 */
export function App({data, theme, initial, onQuit, background, clipboard = osc52}: AppProps) {
  const {exit} = useApp();
  const {isRawModeSupported, setRawMode} = useStdin();
  const {columns, rows} = useTerminalSize();
  const [state, setState] = useState(() => initialState(initial?.stack));
  const stateRef = useRef(state);
  // what the screen on top reported at its last render: sizes, ids on screen, what y copies
  const viewRef = useRef<View | null>(null);
  const width = Math.max(20, columns);
  const height = Math.max(6, rows - 1);
  const bodyHeight = height - 3; // header, the screen's sub-header, status bar
  const top = state.stack.at(-1)!;
  const def = defOf(top);
  const help = useMemo(
    () => (state.help ? helpLines(top.kind, width, theme) : []),
    [state.help, top.kind, width, theme],
  );
  const helpSize = {total: help.length, page: bodyHeight};

  const runner: RunnerContext = {
    data,
    clipboard,
    copyText: () => viewRef.current?.copy?.() ?? null,
    suspend: fn => {
      if (isRawModeSupported) setRawMode(false);
      try {
        return fn();
      } finally {
        if (isRawModeSupported) setRawMode(true);
      }
    },
  };
  const dispatch = (action: Action) => {
    const r = reduce(stateRef.current, action);
    stateRef.current = r.state;
    setState(r.state);
    for (const {intent, uid} of r.intents) runIntent(intent, uid, runner, dispatch);
  };
  useKeyQueue((input, key) => dispatch({type: 'key', input, key, view: viewRef.current, help: helpSize}));

  const [backgroundLine, setBackgroundLine] = useState<string | null>(null);
  useEffect(() => {
    if (!background) return;
    let seen: string | null = null;
    let clear: NodeJS.Timeout | undefined;
    const tick = () => {
      const b = background();
      const mark = `${b.state} ${b.done}`;
      // a part stored (or the build ended): the screens read the store again
      if (seen !== null && mark !== seen) dispatch({type: 'changed'});
      seen = mark;
      setBackgroundLine(b.text);
      if (b.state === 'done' || b.state === 'failed') {
        clearInterval(timer);
        if (b.state === 'done') clear = setTimeout(() => setBackgroundLine(null), BACKGROUND_DONE_MS);
      }
    };
    const timer = setInterval(tick, 1000);
    tick();
    return () => {
      clearInterval(timer);
      clearTimeout(clear);
    };
  }, [background]);

  useEffect(() => {
    if (!state.quitting) return;
    onQuit?.();
    exit();
  }, [state.quitting, exit, onQuit]);

  if (state.help) {
    return (
      <Box flexDirection="column" width={width} height={height}>
        <Header title="Help" source={data.label} width={width} theme={theme} />
        <Text bold>Keys</Text>
        <HelpOverlay lines={help} scroll={state.helpScroll} height={bodyHeight} />
        <StatusBar text="? or Esc closes the help · j/k scroll" width={width} theme={theme} />
      </Box>
    );
  }
  const picker = state.picker && state.picker.uid === top.uid ? state.picker : null;
  const env: Env = {
    data,
    width,
    bodyHeight,
    theme,
    version: state.version,
    status: state.status && state.status.uid === top.uid ? state.status.text : null,
    background: backgroundLine,
    prompt: picker ? hintText(PICKER_BINDINGS, 'picker', ' · ') : (def.prompt?.(top) ?? null),
    overlay: picker ? <PickerView picker={picker} width={width} height={bodyHeight} theme={theme} /> : null,
    report: view => {
      viewRef.current = view;
    },
  };
  const Screen = def.Component;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Screen key={top.uid} screen={top} env={env} />
    </Box>
  );
}
