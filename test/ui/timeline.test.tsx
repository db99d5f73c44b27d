import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {IntentTimeline} from '../../source/ui/screens/trajectory/view.js';
import {themeFromEnv} from '../../source/ui/theme.js';

describe('the intent timeline', () => {
  it('keeps what ◆ means at any width: the legend shortens, it is not cut', () => {
    const theme = themeFromEnv({NO_COLOR: '1'});
    for (const [width, legend] of [
      [200, 'E explore I implement V verify O orchestrate · _ waste · ◆ leaves reference'],
      [80, 'E expl. I impl. V verify O orch. · _ waste · ◆ leaves ref.'],
      [60, 'EIVO stages · _ waste · ◆ leaves reference'],
    ] as const) {
      const frame = render(<IntentTimeline stages="EEIVVEIEVVO" width={width} theme={theme} />).lastFrame() ?? '';
      expect(frame).toBe(`intent EEIVVEIEVVO ${legend}`);
    }
  });
});
