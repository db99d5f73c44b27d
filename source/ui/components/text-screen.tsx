import {Text} from 'ink';
import type React from 'react';
import type {Binding, Scope} from '../keys.js';
import type {DisplayLine} from '../display-lines.js';
import type {Env} from '../screens/types.js';
import {ScreenFrame} from './frame.js';
import {TextView} from './text-view.js';

/**
 * A screen that is one scrolling text (agreement, the PTA reference, the reasoning report, an
 * audit): it reports its size for the movement keys and draws the lines, or what is missing.
 */
export function TextScreen(p: {
  env: Env;
  uid: number;
  scope: Scope;
  bindings: Binding[];
  title: string;
  subheader: React.ReactNode;
  lines: DisplayLine[];
  scroll: number;
  missing?: string | null;
  view?: Record<string, unknown>;
}) {
  const {env} = p;
  env.report({uid: p.uid, total: p.lines.length, page: env.bodyHeight, ...p.view});
  return (
    <ScreenFrame
      env={env}
      scope={p.scope}
      bindings={p.bindings}
      title={p.title}
      subheader={p.subheader}
      body={
        p.missing ? (
          <Text color={env.theme.bad}>{p.missing}</Text>
        ) : (
          <TextView lines={p.lines} scroll={p.scroll} height={env.bodyHeight} theme={env.theme} />
        )
      }
    />
  );
}
