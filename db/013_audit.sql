-- 013: explanation audits (ExplainBench §6): one row per audit of an agent's explanation, and its
-- transcript, message by message (every model message, tool call and capped tool result, with its
-- tokens), written as it happens so an interrupted audit can resume and is never saved as done.
CREATE TABLE audit (
  id           INTEGER PRIMARY KEY,
  instance     TEXT NOT NULL REFERENCES instance(id),
  agent        TEXT NOT NULL,
  trajectory   INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
  status       TEXT NOT NULL CHECK (status IN ('running', 'done', 'incomplete', 'failed')),
  reason       TEXT,                               -- why it is incomplete or failed
  model        TEXT NOT NULL,
  inputs       TEXT NOT NULL,                      -- JSON: buggy tree, patch, explanation, issue, budgets
  original     TEXT NOT NULL,
  refined      TEXT,
  requirements TEXT,                               -- JSON, when the requirement audit ran
  tool_calls   INTEGER NOT NULL DEFAULT 0,
  tokens_in    INTEGER NOT NULL DEFAULT 0,
  tokens_out   INTEGER NOT NULL DEFAULT 0,
  cost         REAL,
  started_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  finished_at  TEXT
);
CREATE INDEX audit_instance ON audit(instance, agent);

CREATE TABLE audit_message (
  audit        INTEGER NOT NULL REFERENCES audit(id) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  role         TEXT NOT NULL,                      -- system | user | assistant | tool
  content      TEXT,
  tool_calls   TEXT,                               -- JSON: the assistant's calls
  tool_call_id TEXT,
  tool         TEXT,                               -- the tool a result is from
  arguments    TEXT,
  tokens       INTEGER,
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (audit, seq)
);
