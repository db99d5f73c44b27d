import type {Db} from './db.js';

export function ensureAgent(db: Db, name: string, model: string): number {
  db.prepare('INSERT INTO agent (name, model) VALUES (?, ?) ON CONFLICT (name, model) DO NOTHING').run(name, model);
  return (db.prepare('SELECT id FROM agent WHERE name = ? AND model = ?').get(name, model) as {id: number}).id;
}

export interface AgentRow {
  id: number;
  name: string;
  model: string;
  trajectories: number;
}

export function listAgents(db: Db): AgentRow[] {
  return db
    .prepare(
      `SELECT a.id, a.name, a.model, count(t.id) AS trajectories
       FROM agent a LEFT JOIN trajectory t ON t.agent = a.id GROUP BY a.id ORDER BY a.name, a.model`,
    )
    .all() as AgentRow[];
}
