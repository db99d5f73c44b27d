/**
 * A run's reference tree as display lines: what the explorer's P screen shows and what
 * `deltalens lens reference` prints. No Ink here.
 */
import {followPath, toDag, type PtaNode} from '../core/lens/pta.js';
import {describeState} from '../core/lens/quality.js';
import {fit} from '../core/text/sanitize.js';
import {textBlock, type DisplayLine} from './display-lines.js';
import type {PtaView} from '../services/lens.js';

/**
 * The reference as an indented tree: a chain of single children stays at one indentation,
 * branches indent. ▶ marks the selected run's path, ◆ where it leaves (its state that has no
 * equivalent child). As a DAG (suffixes that agree merged, `toDag`), a node reached a second
 * time is one line, "↳ joins", instead of its subtree again.
 */
export function ptaLines(v: PtaView, width: number, dag = false, o: {header?: boolean} = {}): DisplayLine[] {
  // without the header (a command prints its own): the tree alone
  const lines: DisplayLine[] =
    o.header === false
      ? []
      : [
          ...textBlock(
            `Reference for #${v.trajectory} (${v.agent}, ${v.resolved === null ? 'status unknown' : v.resolved ? 'resolved' : 'unresolved'}) on ${v.instance}: ${dag ? 'a DAG (the prefix tree with agreeing suffixes merged)' : 'a prefix tree'} built from ${v.refRuns.length} passing run(s) ${v.refRuns.map(x => `#${x}`).join(' ')} — never the run itself${v.excluded.length ? `; Lucky runs left out: ${v.excluded.map(x => `#${x}`).join(' ')}` : ''}.`,
            width,
          ).map(l => ({...l, role: 'muted' as const})),
          {
            text: `×N = runs through the node · ▶ this run's path · ◆ where it leaves · D ${dag ? 'tree' : 'DAG'} view`,
            role: 'muted',
          },
          {text: ''},
        ];
  if (!v.refRuns.length)
    return [
      ...lines,
      {text: 'No other passing run of this task: there is no reference to compare with.', role: 'muted'},
    ];
  const root = dag ? toDag(v.root) : v.root;
  const dagFollow = dag
    ? followPath(
        root,
        v.states.map(s => s.state),
      )
    : null;
  const follow = dagFollow
    ? {ids: dagFollow.path.map(n => n.id), leftAt: dagFollow.leftAt}
    : {ids: [...v.path], leftAt: v.leftAt};
  const path = new Set(follow.ids);
  const leaveParent = follow.leftAt === null ? null : follow.leftAt === 0 ? root.id : (follow.ids.at(-1) ?? null);
  const printed = new Set<number>();
  // ◆ goes right under the node the run leaves from, before that node's children: at the
  // root it is the first line of the tree, never after the last branch's subtree
  const leaves = (indent: number) => {
    if (follow.leftAt === null) return;
    const s = v.states[follow.leftAt]!;
    lines.push({
      text: fit(
        `${' '.repeat(indent)}◆ #${v.trajectory} leaves here at step ${s.idx + 1}: ${describeState(s.state)} — no equivalent child${leaveParent === root.id ? ' of the root' : ''}`,
        width,
      ),
      role: 'removed',
    });
  };
  const walk = (node: PtaNode, indent: number) => {
    const many = node.children.length > 1;
    node.children.forEach((c, i) => {
      const on = path.has(c.id);
      const branch = many ? (i === node.children.length - 1 ? '└ ' : '├ ') : '';
      const prefix = ' '.repeat(indent) + branch;
      if (printed.has(c.id)) {
        lines.push({
          text: fit(
            `${prefix}${on ? '▶ ' : '  '}↳ joins ${describeState(c.state!)}  ×${c.support} (shown above)`,
            width,
          ),
          ...(on ? {role: 'added' as const} : {}),
        });
        return;
      }
      printed.add(c.id);
      const runs =
        c.runs.length <= 6
          ? c.runs.map(r => `#${r}`).join(' ')
          : `${c.runs
              .slice(0, 5)
              .map(r => `#${r}`)
              .join(' ')} …`;
      lines.push({
        text: fit(`${prefix}${on ? '▶ ' : '  '}${describeState(c.state!)}  ×${c.support}  ${runs}`, width),
        ...(on ? {role: 'added' as const} : {}),
      });
      const inner = indent + (many ? 2 : 0);
      if (c.id === leaveParent) leaves(inner + (c.children.length > 1 ? 2 : 0));
      walk(c, inner);
    });
  };
  lines.push({text: `root  ×${root.support}`, role: 'heading'});
  if (leaveParent === root.id) leaves(2);
  walk(root, 2);
  if (follow.leftAt === null) lines.push({text: `#${v.trajectory} follows the reference to its end.`, role: 'muted'});
  return lines;
}
