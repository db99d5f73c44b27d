/** Text a terminal would act on, for tests that print data. */

/** Every kind of sequence a terminal acts on. */
export const HOSTILE =
  '\x1b[2J\x1b[H' + // clear screen, home
  '\x1b]0;pwned\x07' + // window title
  '\x1b]52;c;cm0gLXJmIH4=\x07' + // clipboard write
  '\x1b[6n\x1b[c' + // cursor position and device attribute queries (the terminal types an answer)
  '\x9b31m\x9d0;c1\x9c' + // 8-bit CSI / OSC / ST
  '\x1bP+q544e\x1b\\' + // DCS (XTGETTCAP)
  '\u202egnp.exe\u202c\u2066x\u2069'; // bidi override and isolate

/** What may never appear raw in output: ESC, BEL, C1 controls, bidi controls. */
export const RAW = /[\x07\x1b\x80-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
