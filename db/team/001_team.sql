-- 001: the team's human work on one PostgreSQL server (deltalens --team URL). Keys every local
-- store agrees on: the question id, the explanation's content hash (sha256 of its instance,
-- agent, kind and text), the person. Timestamps are the local store's ISO times: the newer of two
-- writes of one key wins.
CREATE TABLE team_label (
  question    TEXT NOT NULL,
  explanation TEXT NOT NULL,
  annotator   TEXT NOT NULL,
  letters     JSONB NOT NULL,
  rationale   TEXT,
  seconds     DOUBLE PRECISION,
  created_at  TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (question, explanation, annotator)
);

CREATE TABLE team_adjudication (
  question    TEXT NOT NULL,
  explanation TEXT NOT NULL,
  adjudicator TEXT NOT NULL,
  letters     JSONB NOT NULL,
  note        TEXT,
  created_at  TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (question, explanation)
);

CREATE TABLE team_flag (
  question    TEXT NOT NULL,
  author      TEXT NOT NULL,
  verdict     TEXT NOT NULL,
  note        TEXT,
  created_at  TEXT NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (question, author)
);
