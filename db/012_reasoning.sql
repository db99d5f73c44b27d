-- 012: code-reasoning tags (DeskCheck §2). A tagging run records the detector, its version and
-- its settings (thresholds); each tag is one matched span of a step's thought, with its family
-- (A–E, or obs for an observation) and kind. Re-tagging a run with a detector replaces that
-- detector's tags of the run.
CREATE TABLE reasoning_run (
  id          INTEGER PRIMARY KEY,
  detector    TEXT NOT NULL,
  version     INTEGER NOT NULL,
  settings    TEXT NOT NULL,                       -- JSON
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
ALTER TABLE reasoning_tag ADD COLUMN run INTEGER REFERENCES reasoning_run(id) ON DELETE CASCADE;
ALTER TABLE reasoning_tag ADD COLUMN detector TEXT NOT NULL DEFAULT 'default';
ALTER TABLE reasoning_tag ADD COLUMN span_start INTEGER;
ALTER TABLE reasoning_tag ADD COLUMN span_end INTEGER;
ALTER TABLE reasoning_tag ADD COLUMN claim TEXT;                 -- JSON, when a claim was checked
CREATE INDEX reasoning_tag_step ON reasoning_tag(trajectory, detector, step);
CREATE INDEX reasoning_tag_family ON reasoning_tag(detector, category);
