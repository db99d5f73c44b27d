-- 017: scoring through an OpenAI-compatible Batch API (score --batch). A batch is stored the
-- moment the endpoint accepts it, with every request it holds, so a later run (after Ctrl+C, a
-- crash, a day) collects its answers instead of paying for them again; `ingested_at` is set once
-- its answers are stored.
CREATE TABLE score_batch (
  id          TEXT PRIMARY KEY,                  -- the endpoint's batch id
  model       TEXT NOT NULL,                     -- as its answers are stored (' [choices only]' included)
  endpoint    TEXT,                              -- the base URL it was sent to (NULL: OpenAI's)
  input_file  TEXT NOT NULL,
  requests    INTEGER NOT NULL,
  status      TEXT NOT NULL,                     -- the endpoint's status, as last seen
  completed   INTEGER NOT NULL DEFAULT 0,
  failed      INTEGER NOT NULL DEFAULT 0,
  output_file TEXT,
  error_file  TEXT,
  error       TEXT,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  ingested_at TEXT
);

CREATE TABLE score_batch_request (
  batch       TEXT NOT NULL REFERENCES score_batch(id) ON DELETE CASCADE,
  custom_id   TEXT NOT NULL,
  question    TEXT NOT NULL,
  explanation INTEGER NOT NULL,
  sample      INTEGER NOT NULL,
  prompt_hash TEXT NOT NULL,
  permutation TEXT NOT NULL,                     -- JSON list: the canonical labels in the order shown
  seed        INTEGER NOT NULL,
  PRIMARY KEY (batch, custom_id)
);
