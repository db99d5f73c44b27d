-- 016: why questions build did not build a question: per instance, stage (instance, e2e_intent,
-- e2e_effect, local_intent, local_effect) and agent ('' for none), the latest reason. Cleared when
-- the question is built (or, for the instance stage, when its test reproduces the bug).
CREATE TABLE question_exclusion (
  instance   TEXT NOT NULL,
  stage      TEXT NOT NULL,
  agent      TEXT NOT NULL DEFAULT '',
  reason     TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (instance, stage, agent)
);
