-- 005: AgentLens results (lens build) and people's corrections of intent stages.

-- 001's placeholders are replaced: references are rebuilt from the stored runs on demand
-- (cheap, and always leave-one-out), so no PTA is stored
DROP TABLE pta_edge;
DROP TABLE pta_node;
DROP TABLE pta;
DROP TABLE lens_score;

-- the latest lens build: its options, the calibrated threshold, the tasks it skipped and why,
-- the rounds of --exclude-lucky and the per-agent rankings (JSON each)
CREATE TABLE lens_build (
  id         INTEGER PRIMARY KEY,
  options    TEXT NOT NULL,
  threshold  TEXT NOT NULL,
  skipped    TEXT NOT NULL,
  rounds     TEXT NOT NULL,
  rankings   TEXT NOT NULL,
  built_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- one row per scored run of the latest build
CREATE TABLE lens_score (
  trajectory INTEGER PRIMARY KEY REFERENCES trajectory(id) ON DELETE CASCADE,
  build      INTEGER NOT NULL REFERENCES lens_build(id) ON DELETE CASCADE,
  instance   TEXT NOT NULL,
  quality    REAL NOT NULL,
  signals    TEXT NOT NULL,                     -- JSON {coherence, alignment, coverage, temporal}
  tier       TEXT CHECK (tier IN ('Ideal', 'Solid', 'Lucky')),
  mechanism  TEXT,                              -- JSON {id, name, evidence, steps} for Lucky runs
  waste      TEXT NOT NULL,                     -- JSON [{signal, steps, detail}]
  divergence INTEGER,                           -- step index where the run leaves its reference
  reference  TEXT NOT NULL                      -- JSON: reference runs, excluded Lucky runs, key states
);
CREATE INDEX lens_score_instance ON lens_score(instance, quality);

-- a person's correction of a step's intent stage; the labeller's own stays in step.intent_stage
CREATE TABLE stage_annotation (
  trajectory INTEGER NOT NULL,
  idx        INTEGER NOT NULL,
  annotator  TEXT NOT NULL,
  stage      TEXT NOT NULL CHECK (stage IN ('E', 'I', 'V', 'O')),
  note       TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (trajectory, idx, annotator),
  FOREIGN KEY (trajectory, idx) REFERENCES step(trajectory, idx) ON DELETE CASCADE
);
