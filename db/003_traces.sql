-- 003: what the tracer, the delta extraction and the trace stepper need.

-- a trace: one side (buggy | patched) of one test, run 1 or the re-run (2) that finds
-- nondeterministic values; status complete | truncated | timeout | crashed | error
ALTER TABLE trace ADD COLUMN side TEXT;
ALTER TABLE trace ADD COLUMN run INTEGER NOT NULL DEFAULT 1;
ALTER TABLE trace ADD COLUMN label TEXT;
ALTER TABLE trace ADD COLUMN source_format TEXT NOT NULL DEFAULT 'deltatrace';
ALTER TABLE trace ADD COLUMN header TEXT;           -- JSON: the tracer's header record
ALTER TABLE trace ADD COLUMN outcome TEXT;          -- JSON: the test outcome record
ALTER TABLE trace ADD COLUMN n_frames INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trace ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE trace ADD COLUMN error TEXT;
ALTER TABLE trace ADD COLUMN created_at TEXT;

-- a frame: call_seq is the seq of its call item in the parent's stream; args the locals at
-- entry (JSON object of encoded values); resume = a generator resumed
ALTER TABLE frame ADD COLUMN call_seq INTEGER;
ALTER TABLE frame ADD COLUMN end_seq INTEGER;
ALTER TABLE frame ADD COLUMN call_line INTEGER;
ALTER TABLE frame ADD COLUMN resume INTEGER NOT NULL DEFAULT 0;
ALTER TABLE frame ADD COLUMN args TEXT;

-- a frame's items (its lines, its calls, its end) in order: trace_step rows with fid = the
-- frame; a call item has kind 'call', fid = the caller (0 for top-level frames) and
-- state = {"callee": fid}
ALTER TABLE trace_step ADD COLUMN state_hash INTEGER;   -- stateHash(state); NULL for calls
CREATE INDEX trace_step_frame ON trace_step(trace, fid, seq);
CREATE INDEX frame_parent ON frame(trace, parent_fid);

-- the walk's copy of trace_step: blocks of up to 1024 consecutive items packed as columns
-- (little-endian: aux float64[n] | seq int32[n] | fid int32[n] | line int32[n] | kind uint8[n];
-- kind 0 line, 1 call, 2 return, 3 exception; line 0 = none; aux = state_hash, or the
-- callee fid for a call), so Algorithm 1 reads a million items in a thousand rows
CREATE TABLE trace_chunk (
  trace     INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  first_seq INTEGER NOT NULL,
  last_seq  INTEGER NOT NULL,
  n         INTEGER NOT NULL,
  data      BLOB NOT NULL,
  PRIMARY KEY (trace, first_seq)
) WITHOUT ROWID;

CREATE TABLE trace_source (
  trace     INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  file      TEXT NOT NULL,
  text      TEXT,
  truncated INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (trace, file)
) WITHOUT ROWID;

-- a buggy/patched pair of one test, with what the patch changed (files, line blocks,
-- functions: the statement mapping and the focus) and the workspace it ran in
CREATE TABLE trace_pair (
  id             INTEGER PRIMARY KEY,
  instance       TEXT REFERENCES instance(id),
  label          TEXT,
  test           TEXT NOT NULL,
  buggy_trace    INTEGER REFERENCES trace(id) ON DELETE CASCADE,
  patched_trace  INTEGER REFERENCES trace(id) ON DELETE CASCADE,
  buggy_rerun    INTEGER REFERENCES trace(id) ON DELETE SET NULL,
  patched_rerun  INTEGER REFERENCES trace(id) ON DELETE SET NULL,
  trajectory     INTEGER REFERENCES trajectory(id) ON DELETE SET NULL,
  changes        TEXT,                             -- JSON from deltatrace changes (no diff)
  patch          TEXT,
  workspace      TEXT,                             -- JSON: how the trees were made
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX trace_pair_instance ON trace_pair(instance);

-- delta: status found | none | incomplete; kind is null unless found; options are the
-- named departures (public ExplainBench behaviours) it was computed with
CREATE TABLE delta_new (
  id            INTEGER PRIMARY KEY,
  buggy_trace   INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  patched_trace INTEGER NOT NULL REFERENCES trace(id) ON DELETE CASCADE,
  pair          INTEGER REFERENCES trace_pair(id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'found' CHECK (status IN ('found', 'none', 'incomplete')),
  kind          TEXT CHECK (kind IN ('state', 'control', 'outcome', 'none')),
  function      TEXT,
  file          TEXT,
  line          INTEGER,
  timing        TEXT CHECK (timing IN ('before', 'after')),
  seq_b         INTEGER,
  seq_p         INTEGER,
  options       TEXT NOT NULL DEFAULT '[]',
  detail        TEXT,
  created_at    TEXT
);
INSERT INTO delta_new (id, buggy_trace, patched_trace, status, kind, function, file, line, timing, seq_b, seq_p, detail)
  SELECT id, buggy_trace, patched_trace, CASE kind WHEN 'none' THEN 'none' ELSE 'found' END,
         kind, function, file, line, timing, seq_b, seq_p, detail FROM delta;
DROP TABLE delta;
ALTER TABLE delta_new RENAME TO delta;
CREATE INDEX delta_pair ON delta(pair);
CREATE INDEX delta_traces ON delta(buggy_trace, patched_trace);
