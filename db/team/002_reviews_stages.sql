-- 002: reviewers' accepts and rejects of questions (a log: one row per review) and people's
-- corrections of a step's stage (AgentLens), the run named by its content hash.
CREATE TABLE team_review (
  question    TEXT NOT NULL,
  reviewer    TEXT NOT NULL,
  action      TEXT NOT NULL CHECK (action IN ('accepted', 'rejected')),
  note        TEXT,
  created_at  TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (question, reviewer, created_at)
);

CREATE TABLE team_stage (
  trajectory  TEXT NOT NULL,
  idx         INTEGER NOT NULL,
  annotator   TEXT NOT NULL,
  stage       TEXT NOT NULL CHECK (stage IN ('E', 'I', 'V', 'O')),
  note        TEXT,
  created_at  TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (trajectory, idx, annotator)
);
