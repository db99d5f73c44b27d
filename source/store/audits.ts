import type {Db} from './db.js';
import {ensureInstance} from './instances.js';

type AuditStatus = 'running' | 'done' | 'incomplete' | 'failed';

export interface AuditRow {
  id: number;
  instance: string;
  agent: string;
  trajectory: number | null;
  status: AuditStatus;
  reason: string | null;
  model: string;
  inputs: Record<string, unknown>;
  original: string;
  refined: string | null;
  requirements: unknown;
  tool_calls: number;
  tokens_in: number;
  tokens_out: number;
  cost: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface AuditMessage {
  seq: number;
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls: {id: string; name: string; arguments: string}[] | null;
  tool_call_id: string | null;
  tool: string | null;
  arguments: string | null;
  tokens: number | null;
}

export function createAudit(
  db: Db,
  a: {instance: string; agent: string; trajectory: number | null; model: string; inputs: unknown; original: string},
): number {
  ensureInstance(db, a.instance);
  return Number(
    db
      .prepare(
        "INSERT INTO audit (instance, agent, trajectory, status, model, inputs, original) VALUES (?, ?, ?, 'running', ?, ?, ?)",
      )
      .run(a.instance, a.agent, a.trajectory, a.model, JSON.stringify(a.inputs), a.original).lastInsertRowid,
  );
}

export function addAuditMessage(db: Db, audit: number, m: Omit<AuditMessage, 'seq'>): number {
  const seq =
    ((db.prepare('SELECT max(seq) FROM audit_message WHERE audit = ?').pluck().get(audit) as number | null) ?? -1) + 1;
  db.prepare(
    'INSERT INTO audit_message (audit, seq, role, content, tool_calls, tool_call_id, tool, arguments, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(
    audit,
    seq,
    m.role,
    m.content,
    m.tool_calls ? JSON.stringify(m.tool_calls) : null,
    m.tool_call_id,
    m.tool,
    m.arguments,
    m.tokens,
  );
  return seq;
}

export function updateAudit(
  db: Db,
  id: number,
  f: {
    status?: AuditStatus;
    reason?: string | null;
    refined?: string | null;
    toolCalls?: number;
    tokensIn?: number;
    tokensOut?: number;
    cost?: number | null;
    finished?: boolean;
    requirements?: unknown;
  },
): void {
  const sets: string[] = [];
  const args: unknown[] = [];
  const put = (col: string, v: unknown) => {
    sets.push(`${col} = ?`);
    args.push(v);
  };
  if (f.status !== undefined) put('status', f.status);
  if (f.reason !== undefined) put('reason', f.reason);
  if (f.refined !== undefined) put('refined', f.refined);
  if (f.toolCalls !== undefined) put('tool_calls', f.toolCalls);
  if (f.tokensIn !== undefined) put('tokens_in', f.tokensIn);
  if (f.tokensOut !== undefined) put('tokens_out', f.tokensOut);
  if (f.cost !== undefined) put('cost', f.cost);
  if (f.requirements !== undefined) put('requirements', JSON.stringify(f.requirements));
  if (f.finished) sets.push("finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
  if (!sets.length) return;
  db.prepare(`UPDATE audit SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
}

type StoredAudit = Omit<AuditRow, 'inputs' | 'requirements'> & {inputs: string; requirements: string | null};
const toAudit = (r: StoredAudit): AuditRow => ({
  ...r,
  inputs: JSON.parse(r.inputs) as Record<string, unknown>,
  requirements: r.requirements === null ? null : JSON.parse(r.requirements),
});

export function getAudit(db: Db, id: number): AuditRow | null {
  const r = db.prepare('SELECT * FROM audit WHERE id = ?').get(id) as StoredAudit | undefined;
  return r ? toAudit(r) : null;
}

export function listAudits(db: Db): AuditRow[] {
  return (db.prepare('SELECT * FROM audit ORDER BY id').all() as StoredAudit[]).map(toAudit);
}

export function auditMessages(db: Db, audit: number): AuditMessage[] {
  const rows = db
    .prepare(
      'SELECT seq, role, content, tool_calls, tool_call_id, tool, arguments, tokens FROM audit_message WHERE audit = ? ORDER BY seq',
    )
    .all(audit) as (Omit<AuditMessage, 'tool_calls'> & {tool_calls: string | null})[];
  return rows.map(r => ({
    ...r,
    tool_calls: r.tool_calls ? (JSON.parse(r.tool_calls) as AuditMessage['tool_calls']) : null,
  }));
}

/** The ids of the audits of an agent's explanation of an instance, oldest first. */
export function auditIdsOf(db: Db, instance: string, agent: string): number[] {
  return db
    .prepare('SELECT id FROM audit WHERE instance = ? AND agent = ? ORDER BY id')
    .pluck()
    .all(instance, agent) as number[];
}
