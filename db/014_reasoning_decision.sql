-- 014: a detector's decision about a whole run (the deskcheck detector's "has code reasoning"),
-- kept apart from the step tags; decisions written as step -1 'run' tags by 012's first users move here.
CREATE TABLE reasoning_decision (
  trajectory  INTEGER NOT NULL REFERENCES trajectory(id) ON DELETE CASCADE,
  detector    TEXT NOT NULL,
  run         INTEGER REFERENCES reasoning_run(id) ON DELETE CASCADE,
  has_code_reasoning INTEGER NOT NULL,
  evidence    TEXT,                                -- JSON
  PRIMARY KEY (trajectory, detector)
);
INSERT OR REPLACE INTO reasoning_decision (trajectory, detector, run, has_code_reasoning, evidence)
  SELECT trajectory, detector, run, subcategory = 'has_code_reasoning', evidence FROM reasoning_tag WHERE category = 'run';
DELETE FROM reasoning_tag WHERE category = 'run';
