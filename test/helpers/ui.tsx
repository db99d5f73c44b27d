import {render} from 'ink-testing-library';
import {App, type AppProps} from '../../source/ui/app.js';
import {NO_COLOR_THEME} from '../../source/ui/theme.js';

export const KEYS = {
  enter: '\r',
  escape: '\x1b',
  down: '\x1b[B',
  up: '\x1b[A',
  pageDown: '\x1b[6~',
  backspace: '\x7f',
  ctrlC: '\x03',
};

export function renderApp(props: Omit<AppProps, 'theme'> & Partial<Pick<AppProps, 'theme'>>) {
  const instance = render(<App theme={NO_COLOR_THEME} {...props} />);
  const frame = () => instance.lastFrame() ?? '';

  /** Writes a key and waits for the frame to change (or 1 s), like a person watching the screen. */
  async function press(key: string, {expectChange = true} = {}): Promise<string> {
    const before = frame();
    instance.stdin.write(key);
    const deadline = Date.now() + 1000;
    while (Date.now() < deadline) {
      await new Promise(resolve => setTimeout(resolve, 5));
      if (frame() !== before) break;
    }
    if (expectChange && frame() === before) throw new Error(`key ${JSON.stringify(key)} changed nothing:\n${before}`);
    // several keys in one chunk are handled one per render: wait until the screen settles
    if ([...key].length > 1 && !key.startsWith('\x1b')) {
      let last = frame();
      let still = Date.now();
      while (Date.now() - still < 40 && Date.now() < deadline + 1000) {
        await new Promise(resolve => setTimeout(resolve, 5));
        if (frame() !== last) [last, still] = [frame(), Date.now()];
      }
    }
    return frame();
  }

  /** Waits until the first render has happened. */
  async function ready(): Promise<string> {
    const deadline = Date.now() + 2000;
    while (!frame() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 5));
    // Ink attaches its stdin listener in an effect after the first frame.
    await new Promise(resolve => setTimeout(resolve, 20));
    return frame();
  }

  /** Waits until the frame contains `text` (effects that store something re-render after the key's own frame). */
  async function until(text: string | RegExp, timeout = 2000): Promise<string> {
    const deadline = Date.now() + timeout;
    const ok = () => (typeof text === 'string' ? frame().includes(text) : text.test(frame()));
    while (!ok() && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 5));
    if (!ok()) throw new Error(`the frame never showed ${String(text)}:\n${frame()}`);
    return frame();
  }

  return {...instance, frame, press, ready, until};
}
