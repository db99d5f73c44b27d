import type {Db} from './db.js';

export function ensureAgent(db: Db, name: string, model: string): number {
  db.prepare('INSERT INTO agent (name, model) VALUES (?, ?) ON CONFLICT (name, model) DO NOTHING').run(name, model);
  return (db.prepare('SELECT id FROM agent WHERE name = ? AND model = ?').get(name, model) as {id: number}).id;
}

/** Names of the agents that have runs, in order. */
export function agentNames(db: Db): string[] {
  return (
    db.prepare('SELECT DISTINCT a.name FROM agent a JOIN trajectory t ON t.agent = a.id ORDER BY a.name').all() as {
      name: string;
    }[]
  ).map(r => r.name);
}
