import {describe, expect, it} from 'vitest';
import {highlightLine, htmlToAnsi} from '../../source/ui/highlight.js';

const ESC = '\x1b[';
const plain = (s: string) => s.replace(/\x1b\[\d+m/g, '');

describe('syntax highlighting of one line', () => {
  it('colours Python keywords, names being defined, strings, numbers and comments, and keeps the text as it was', () => {
    const line = 'def f(x): return "a<b" + 1  # c & d';
    const out = highlightLine(line, 'python', true);
    expect(plain(out)).toBe(line);
    expect(out).toContain(`${ESC}34mdef${ESC}39m`);
    expect(out).toContain(`${ESC}33mf${ESC}39m`);
    expect(out).toContain(`${ESC}32m"a<b"${ESC}39m`);
    expect(out).toContain(`${ESC}35m1${ESC}39m`);
    expect(out).toContain(`${ESC}90m# c & d${ESC}39m`);
  });

  it('a span inside a span gives the outer colour back at its end', () => {
    const out = highlightLine('s = f"{x} and {y}"', 'python', true);
    expect(plain(out)).toBe('s = f"{x} and {y}"');
    // the string is green; after each substitution inside it, green again
    expect(out.match(/\x1b\[32m/g)!.length).toBeGreaterThanOrEqual(2);
    expect(out.endsWith(`${ESC}39m`)).toBe(true);
  });

  it('diff lines are green or red; bash commands coloured; off without colour, and plain text left alone', () => {
    expect(highlightLine('+    total += amount', 'diff', true)).toBe(`${ESC}32m+    total += amount${ESC}39m`);
    expect(highlightLine('-    total = amount', 'diff', true)).toBe(`${ESC}31m-    total = amount${ESC}39m`);
    expect(highlightLine('echo $HOME', 'bash', true)).toContain(`${ESC}36mecho`);
    expect(highlightLine('def f(): pass', 'python', false)).toBe('def f(): pass');
    expect(highlightLine('def f(): pass', 'plain', true)).toBe('def f(): pass');
  });

  it("text that looks like markup is text: only highlight.js's own spans become colours", () => {
    const line = 'x = "<span class=\\"hljs-keyword\\">&amp;</span>"';
    expect(plain(highlightLine(line, 'python', true))).toBe(line);
    expect(htmlToAnsi('a &lt;b&gt; &amp; &quot;c&quot; &#x27;d&#x27;')).toBe('a <b> & "c" \'d\'');
    expect(htmlToAnsi('</span>x')).toBe('x');
  });
});
