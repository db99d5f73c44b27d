/** Movement every list and text screen shares: a cursor over rows, or the scroll of a text. */

export interface Cursor {
  cursor: number;
  top: number;
}

export const START: Cursor = {cursor: 0, top: 0};

/** How much a screen shows: rows (or lines) in all, and rows on screen. */
export interface Size {
  total: number;
  page: number;
}

export function moveCursor(c: Cursor, id: string, {total, page}: Size): Cursor {
  const last = Math.max(0, total - 1);
  let cursor = c.cursor;
  if (id === 'down') cursor++;
  else if (id === 'up') cursor--;
  else if (id === 'pageDown') cursor += page;
  else if (id === 'pageUp') cursor -= page;
  else if (id === 'top') cursor = 0;
  else if (id === 'bottom') cursor = last;
  cursor = Math.min(Math.max(0, cursor), last);
  const {top} = followCursor(c, cursor, page);
  return {cursor, top: Math.max(0, Math.min(top, Math.max(0, total - page)))};
}

/** Scrolling text: the offset of the first visible line. */
export function moveScroll(scroll: number, id: string, {total, page}: Size): number {
  const max = Math.max(0, total - page);
  const next =
    id === 'down'
      ? scroll + 1
      : id === 'up'
        ? scroll - 1
        : id === 'pageDown'
          ? scroll + page
          : id === 'pageUp'
            ? scroll - page
            : id === 'top'
              ? 0
              : id === 'bottom'
                ? max
                : scroll;
  return Math.min(Math.max(0, next), max);
}

/** Moves the window just enough that `cursor` is on screen. */
export function followCursor(c: Cursor, cursor: number, page: number): Cursor {
  let top = c.top;
  if (cursor < top) top = cursor;
  if (cursor >= top + page) top = cursor - page + 1;
  return {cursor, top};
}
