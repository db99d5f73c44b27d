import type {AuditMessage, AuditRow} from '../../../store/audits.js';
import {toolResultBrief} from '../../../core/audit/brief.js';
import {textBlock, type DisplayLine} from '../../display-lines.js';

/** The refined explanation's lines, those not in the original marked as added. */
function compared(original: string, refined: string, width: number): {left: DisplayLine[]; right: DisplayLine[]} {
  const origLines = new Set(
    original
      .split('\n')
      .map(l => l.trim())
      .filter(Boolean),
  );
  const left = textBlock(original, width);
  const right: DisplayLine[] = [];
  for (const para of refined.split('\n')) {
    const added = para.trim() !== '' && !origLines.has(para.trim()) && !original.includes(para.trim());
    for (const l of textBlock(para, width)) right.push(added ? {...l, role: 'added'} : l);
  }
  return {left, right};
}

/** One audit as display lines: status, the two explanations (side by side when wide), the requirements, the transcript. */
export function auditLines(a: AuditRow, messages: AuditMessage[], width: number): DisplayLine[] {
  const out: DisplayLine[] = [];
  const heading = (t: string) => out.push({text: t, role: 'heading'});
  const text = (t: string, role?: DisplayLine['role']) =>
    out.push(...textBlock(t, width).map(l => (role ? {...l, role} : l)));
  text(
    `${a.status}${a.reason ? ` — ${a.reason}` : ''} · ${a.model}${a.model === 'offline-scripted-auditor' ? " (the demo's offline scripted auditor)" : ''} · ${a.tool_calls} tool calls · ${a.tokens_in} tokens in, ${a.tokens_out} out${a.cost !== null ? ` · $${a.cost.toFixed(4)}` : ''}`,
    'muted',
  );
  out.push({text: ''});
  if (width >= 120) {
    const half = Math.floor((width - 3) / 2);
    const {left, right} = compared(a.original, a.refined ?? '(no refined explanation: the audit did not finish)', half);
    heading(`${'Original explanation'.padEnd(half)} │ Refined (new text marked)`);
    for (let i = 0; i < Math.max(left.length, right.length); i++) {
      const l = left[i]?.text ?? '';
      const r = right[i];
      out.push({text: `${l.padEnd(half)} │ ${r?.text ?? ''}`, ...(r?.role ? {role: r.role} : {})});
    }
  } else {
    heading('Original explanation');
    text(a.original);
    out.push({text: ''});
    heading('Refined (new text marked)');
    if (a.refined === null) text('(none: the audit did not finish)', 'muted');
    else out.push(...compared(a.original, a.refined, width).right);
  }
  const reqs = a.requirements as {requirement: string; verdict: string; test?: string | null; detail?: string}[] | null;
  if (reqs?.length) {
    out.push({text: ''});
    heading('Requirements (DeskCheck §3.1.4–3.1.5)');
    for (const r of reqs)
      text(
        `${r.verdict.padEnd(14)} ${r.requirement}${r.detail ? ` — ${r.detail}` : ''}`,
        r.verdict === 'violated' ? 'removed' : r.verdict === 'satisfied' ? 'added' : 'muted',
      );
  }
  out.push({text: ''});
  heading('Transcript');
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'user') {
      // the prompts, long and mostly the same every time: their start, on one line
      const flat = (m.content ?? '').replace(/\s+/g, ' ').trim();
      text(`[${m.role}] ${flat.length > 300 ? `${flat.slice(0, 299)}…` : flat}`, 'muted');
      continue;
    }
    if (m.role === 'assistant') {
      if (m.content) text(`[model] ${m.content}`);
      for (const c of m.tool_calls ?? []) {
        let args: Record<string, unknown> | null = null;
        try {
          args = JSON.parse(c.arguments) as Record<string, unknown>;
        } catch {
          args = null;
        }
        text(
          `→ ${c.name}(${args && typeof args.test_code !== 'string' ? c.arguments : args ? '' : c.arguments})`,
          'hunk',
        );
        // a test the model wrote, as Python
        if (args && typeof args.test_code === 'string') out.push(...textBlock(args.test_code, width, 'python'));
      }
      continue;
    }
    let brief = (m.content ?? '').slice(0, 2000);
    try {
      brief = toolResultBrief(JSON.parse(m.content ?? ''));
    } catch {
      // a result cut at its cap
    }
    text(`← ${m.tool}: ${brief}`, brief.startsWith('error') ? 'removed' : undefined);
  }
  return out;
}
