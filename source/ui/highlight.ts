// (the type import loads highlight.js's declarations of its lib/ paths)
import type {} from 'highlight.js';
import hljs from 'highlight.js/lib/core.js';
import bash from 'highlight.js/lib/languages/bash.js';
import diff from 'highlight.js/lib/languages/diff.js';
import python from 'highlight.js/lib/languages/python.js';

/**
 * Syntax highlighting off the render path: one visible line at a time, memoized, so a
 * 10,000-line observation costs only the lines on screen. Lines are highlighted separately so
 * an escape code never bleeds from one rendered line into the next. Only the three languages the
 * explorer shows are loaded (all of highlight.js cost about 65 ms of every start).
 */
hljs.registerLanguage('python', python);
hljs.registerLanguage('bash', bash);
hljs.registerLanguage('diff', diff);

const cache = new Map<string, string>();
const LIMIT = 5000;

export type Language = 'bash' | 'python' | 'diff' | 'plain';

/** ANSI foreground colours by highlight.js class (the rest stays as it is). */
const COLOURS: Record<string, number> = {
  keyword: 34, // blue
  built_in: 36, // cyan
  literal: 36,
  type: 36,
  string: 32, // green
  number: 35, // magenta
  comment: 90, // grey
  meta: 90,
  title: 33, // yellow: a function or class being defined
  variable: 33,
  addition: 32,
  deletion: 31,
  section: 36,
  subst: 39, // an f-string's {expression}: plain inside its green string
};
const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};

/** highlight.js's HTML for one line as ANSI: a span's colour on where it differs from the one
 * around it, and that one back at its end; entities decoded. */
export function htmlToAnsi(html: string): string {
  const stack: number[] = [39];
  return html.replace(
    /<span class="hljs-([\w-]+)[^"]*">|<\/span>|&(?:amp|lt|gt|quot|#x27|#39);/g,
    (token, cls: string | undefined) => {
      if (token.startsWith('&')) return ENTITIES[token]!;
      const around = stack.at(-1)!;
      if (cls !== undefined) {
        const code = COLOURS[cls] ?? around;
        stack.push(code);
        return code === around ? '' : `\x1b[${code}m`;
      }
      if (stack.length === 1) return '';
      const ended = stack.pop()!;
      return ended === stack.at(-1) ? '' : `\x1b[${stack.at(-1)}m`;
    },
  );
}

export function highlightLine(line: string, language: Language, color: boolean): string {
  if (!color || language === 'plain' || line.length === 0) return line;
  const key = `${language}\0${line}`;
  let out = cache.get(key);
  if (out === undefined) {
    try {
      out = htmlToAnsi(hljs.highlight(line, {language, ignoreIllegals: true}).value);
    } catch {
      out = line;
    }
    if (cache.size >= LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, out);
  }
  return out;
}

/** Guess how to colour an observation from the action that produced it. */
export function observationLanguage(action: string | null, observation: string): Language {
  if (/^(diff --git|--- a\/|@@ )/m.test(observation.slice(0, 2000))) return 'diff';
  if (
    action &&
    /\.py\b/.test(action) &&
    /^(cat|open|view|sed|head|tail|nl|grep -n|str_replace_editor view)\b|\bview\b/.test(action.trim())
  ) {
    return 'python';
  }
  return 'plain';
}
