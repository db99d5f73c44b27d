import type {Key} from 'ink';

/** One line being typed (a filter, a search, a watch, a note): Backspace deletes the last
 * character; printable input is appended; control characters and Ctrl/Meta chords are not. */
export function editLine(text: string, input: string, key: Key): string {
  if (key.backspace || key.delete) return [...text].slice(0, -1).join('');
  const typed = input.replace(/[\x00-\x1f\x7f]/g, '');
  return typed && !key.ctrl && !key.meta ? text + typed : text;
}
