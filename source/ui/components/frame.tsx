import {Box, Text} from 'ink';
import type React from 'react';
import {fit} from '../../core/text/sanitize.js';
import {GLOBAL_BINDINGS, hintText, type Binding, type Scope} from '../keys.js';
import type {Env} from '../screens/types.js';
import type {Theme} from '../theme.js';

export function Header({title, source, width, theme}: {title: string; source: string; width: number; theme: Theme}) {
  const left = `deltalens · ${title}`;
  const right = source;
  const gap = Math.max(1, width - [...left].length - [...right].length);
  return (
    <Text bold color={theme.accent} wrap="truncate-end">
      {fit(`${left}${' '.repeat(gap)}${right}`, width)}
    </Text>
  );
}

export function StatusBar({text, width, theme}: {text: string; width: number; theme: Theme}) {
  return (
    <Text color={theme.muted} inverse={!theme.color} wrap="truncate-end">
      {fit(text, width).padEnd(width)}
    </Text>
  );
}

/**
 * Every explorer screen's frame: header, the screen's sub-header line, its body (or an open
 * picker), and the status line — a sub-mode's prompt, else the screen's last status message,
 * else the screen's key hints (after a background build's progress, while one runs).
 */
export function ScreenFrame(p: {
  env: Env;
  scope: Scope;
  bindings: Binding[];
  title: string;
  position?: string;
  subheader: React.ReactNode;
  body: React.ReactNode;
  /** the screen shows its status itself (the question screen, above its text) */
  ownStatus?: boolean;
}) {
  const {env} = p;
  const hints = hintText([...p.bindings, ...GLOBAL_BINDINGS], p.scope);
  const line =
    env.prompt ?? (p.ownStatus ? null : env.status) ?? (env.background ? `${env.background} · ${hints}` : hints);
  return (
    <>
      <Header title={p.title} source={env.data.label + (p.position ?? '')} width={env.width} theme={env.theme} />
      {p.subheader}
      {env.overlay ? (
        <Box flexDirection="column" height={env.bodyHeight}>
          {env.overlay}
        </Box>
      ) : (
        p.body
      )}
      <StatusBar text={line} width={env.width} theme={env.theme} />
    </>
  );
}
