/** Semantic colour tokens; the no-colour theme marks selection with inverse and bold instead. */
export interface Theme {
  color: boolean;
  accent?: string;
  muted?: string;
  good?: string;
  bad?: string;
  warn?: string;
  selected: {color?: string; backgroundColor?: string; inverse?: boolean; bold?: boolean};
  added?: string;
  removed?: string;
  hunk?: string;
}

const COLOR_THEME: Theme = {
  color: true,
  accent: 'cyan',
  muted: 'gray',
  good: 'green',
  bad: 'red',
  warn: 'yellow',
  selected: {color: 'black', backgroundColor: 'cyan'},
  added: 'green',
  removed: 'red',
  hunk: 'cyan',
};

export const NO_COLOR_THEME: Theme = {color: false, selected: {inverse: true, bold: true}};

export function themeFromEnv(env: NodeJS.ProcessEnv = process.env): Theme {
  return (env['NO_COLOR'] ?? '') !== '' || env['FORCE_COLOR'] === '0' ? NO_COLOR_THEME : COLOR_THEME;
}
