-- The whole data model of DESIGN.md. Later migrations add columns and indexes; they never
-- rewrite this file once it has been applied anywhere.

CREATE TABLE instance (
  id                TEXT PRIMARY KEY,            -- e.g. sympy__sympy-20590
  repo              TEXT,
  base_commit       TEXT,
  problem_statement TEXT,
  gold_patch        TEXT,
  test_patch        TEXT,
  fail_to_pass      TEXT,                         -- JSON list of test ids
  pass_to_pass      TEXT,                         -- JSON list of test ids
  difficulty        TEXT,
  source_path       TEXT
);

CREATE TABLE agent (
  id    INTEGER PRIMARY KEY,
  name  TEXT NOT NULL,
  model TEXT NOT NULL DEFAULT '',
  UNIQUE (name, model)
);

CREATE TABLE trajectory (
  id            INTEGER PRIMARY KEY,
  instance      TEXT NOT NULL REFERENCES instance(id),
  agent         INTEGER NOT NULL REFERENCES agent(id),
  source_format TEXT NOT NULL,
  source_path   TEXT NOT NULL,
  source_locator TEXT,                            -- JSONL line range or record index inside source_path
  content_hash  TEXT NOT NULL UNIQUE,
  resolved      INTEGER,                          -- 1, 0 or NULL when no source says
  resolved_source TEXT,                           -- file that gave the resolved status
  patch         TEXT,
  exit_status   TEXT,
  cost          REAL,
  tokens_in     INTEGER,
  tokens_out    INTEGER,
  n_steps       INTEGER NOT NULL DEFAULT 0,
  meta          TEXT,                             -- JSON: tool version, config name, …
  imported_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX trajectory_instance ON trajectory(instance);
CREATE INDEX trajectory_agent ON trajectory(agent);

CREATE TABLE step (
  trajectory    INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
  idx           INTEGER NOT NULL,
  thought       TEXT,
  action_tool   TEXT,
  action_args   TEXT,                             -- JSON object, or the raw command string as JSON
  action_text   TEXT,                             -- the action as the agent wrote it (command line, edit block)
  observation   TEXT,
  intent_stage  TEXT,
  labeller_rule TEXT,
  PRIMARY KEY (trajectory, idx)
) WITHOUT ROWID;

CREATE TABLE explanation (
  id         INTEGER PRIMARY KEY,
  trajectory INTEGER REFERENCES trajectory(id) ON DELETE CASCADE,
  instance   TEXT REFERENCES instance(id),
  agent      INTEGER REFERENCES agent(id),
  kind       TEXT NOT NULL CHECK (kind IN ('original', 'audited', 'blank', 'custom')),
  text       TEXT,                               -- NULL when a source names an explanation it lacks
  n_chars    INTEGER NOT NULL DEFAULT 0,
  source     TEXT
);
CREATE INDEX explanation_trajectory ON explanation(trajectory);

CREATE TABLE program_version (
  id         INTEGER PRIMARY KEY,
  instance   TEXT NOT NULL REFERENCES instance(id),
  kind       TEXT NOT NULL CHECK (kind IN ('buggy', 'gold', 'agent')),
  trajectory INTEGER REFERENCES trajectory(id) ON DELETE CASCADE,
  patch      TEXT
);

CREATE TABLE test (
  id                INTEGER PRIMARY KEY,
  instance          TEXT NOT NULL REFERENCES instance(id),
  kind              TEXT NOT NULL CHECK (kind IN ('pbt', 'example')),
  path              TEXT,
  node_id           TEXT,
  source            TEXT,
  masked_expression TEXT
);

CREATE TABLE test_run (
  id          INTEGER PRIMARY KEY,
  version     INTEGER NOT NULL REFERENCES program_version(id) ON DELETE CASCADE,
  test        INTEGER NOT NULL REFERENCES test(id) ON DELETE CASCADE,
  outcome     TEXT NOT NULL CHECK (outcome IN ('pass', 'fail', 'error')),
  fail_line   INTEGER,
  exception   TEXT,
  duration_ms REAL
);

CREATE TABLE trace (
  id             INTEGER PRIMARY KEY,
  version        INTEGER NOT NULL REFERENCES program_version(id) ON DELETE CASCADE,
  test           INTEGER NOT NULL REFERENCES test(id) ON DELETE CASCADE,
  status         TEXT NOT NULL,
  n_events       INTEGER NOT NULL DEFAULT 0,
  truncated      INTEGER NOT NULL DEFAULT 0,
  tracer_version TEXT,
  python         TEXT
);

CREATE TABLE frame (
  trace      INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  fid        INTEGER NOT NULL,
  parent_fid INTEGER,
  call_index INTEGER,
  function   TEXT,
  file       TEXT,
  def_line   INTEGER,
  outcome    TEXT,                                -- JSON
  PRIMARY KEY (trace, fid)
) WITHOUT ROWID;

CREATE TABLE trace_step (
  trace INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  seq   INTEGER NOT NULL,
  fid   INTEGER NOT NULL,
  kind  TEXT NOT NULL CHECK (kind IN ('line', 'call', 'return', 'exception')),
  line  INTEGER,
  state TEXT,                                     -- JSON
  PRIMARY KEY (trace, seq)
) WITHOUT ROWID;

CREATE TABLE delta (
  id            INTEGER PRIMARY KEY,
  buggy_trace   INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  patched_trace INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  kind          TEXT NOT NULL CHECK (kind IN ('state', 'control', 'outcome', 'none')),
  function      TEXT,
  file          TEXT,
  line          INTEGER,
  timing        TEXT CHECK (timing IN ('before', 'after')),
  seq_b         INTEGER,
  seq_p         INTEGER,
  detail        TEXT                              -- JSON
);

CREATE TABLE question (
  id         TEXT PRIMARY KEY,
  instance   TEXT NOT NULL REFERENCES instance(id),
  type       TEXT NOT NULL CHECK (type IN ('e2e_intent', 'e2e_effect', 'local_intent', 'local_effect')),
  trajectory INTEGER REFERENCES trajectory(id) ON DELETE CASCADE,
  context    TEXT,                                -- JSON
  key        TEXT,                                -- JSON list of letters
  provenance TEXT                                 -- JSON
);

CREATE TABLE choice (
  question   TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  label      TEXT NOT NULL,
  text       TEXT NOT NULL,
  role       TEXT NOT NULL CHECK (role IN ('correct', 'distractor', 'insufficient', 'no_effect')),
  validation TEXT,                                -- JSON
  PRIMARY KEY (question, label)
) WITHOUT ROWID;

CREATE TABLE qa_answer (
  id          INTEGER PRIMARY KEY,
  question    TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  explanation INTEGER NOT NULL REFERENCES explanation(id) ON DELETE CASCADE,
  model       TEXT NOT NULL,
  sample      INTEGER NOT NULL,
  prompt_hash TEXT,
  raw         TEXT,
  letters     TEXT,                               -- JSON list, NULL when unparseable
  verdict     TEXT CHECK (verdict IN ('correct', 'misaligned', 'uninformative')),
  latency_ms  REAL,
  tokens      INTEGER,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (question, explanation, model, sample, prompt_hash)
);

CREATE TABLE annotation (
  id          INTEGER PRIMARY KEY,
  question    TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  explanation INTEGER NOT NULL REFERENCES explanation(id) ON DELETE CASCADE,
  annotator   TEXT NOT NULL,
  letters     TEXT NOT NULL,                      -- JSON list
  rationale   TEXT,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE adjudication (
  id          INTEGER PRIMARY KEY,
  question    TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  explanation INTEGER NOT NULL REFERENCES explanation(id) ON DELETE CASCADE,
  adjudicator TEXT NOT NULL,
  letters     TEXT NOT NULL,
  note        TEXT,
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE question_flag (
  id         INTEGER PRIMARY KEY,
  question   TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  author     TEXT NOT NULL,
  verdict    TEXT NOT NULL,
  note       TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE pta (
  id         INTEGER PRIMARY KEY,
  instance   TEXT NOT NULL REFERENCES instance(id),
  built_from TEXT NOT NULL,                       -- JSON list of trajectory ids
  params     TEXT                                 -- JSON
);

CREATE TABLE pta_node (
  pta     INTEGER NOT NULL REFERENCES pta(id) ON DELETE CASCADE,
  node    INTEGER NOT NULL,
  state   TEXT,                                   -- JSON
  support INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (pta, node)
) WITHOUT ROWID;

CREATE TABLE pta_edge (
  pta     INTEGER NOT NULL REFERENCES pta(id) ON DELETE CASCADE,
  src     INTEGER NOT NULL,
  dst     INTEGER NOT NULL,
  support INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (pta, src, dst)
) WITHOUT ROWID;

CREATE TABLE lens_score (
  trajectory           INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
  pta                  INTEGER REFERENCES pta(id) ON DELETE CASCADE,
  coherence            REAL,
  structural_alignment REAL,
  set_coverage         REAL,
  temporal_profile     REAL,
  quality              REAL,
  tier                 TEXT,
  mechanism            TEXT,
  divergence_step      INTEGER,
  waste                TEXT,                      -- JSON
  thresholds           TEXT                       -- JSON
);

CREATE TABLE reasoning_tag (
  trajectory  INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
  step        INTEGER NOT NULL,
  category    TEXT NOT NULL,
  subcategory TEXT,
  evidence    TEXT
);
