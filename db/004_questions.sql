-- 004: questions, explanations by agent, recorded answers and published statistics
-- (ExplainBench §4.4–4.5, §7.3).

-- the question text, and the agent whose patch an effect question is about (ExplainBench
-- data names agents, not runs; trajectory stays for questions made from a stored run)
ALTER TABLE question ADD COLUMN text TEXT;
ALTER TABLE question ADD COLUMN agent INTEGER REFERENCES agent(id);
CREATE INDEX question_instance ON question(instance, type);

-- choices keep the order they were written in
ALTER TABLE choice ADD COLUMN position INTEGER NOT NULL DEFAULT 0;

-- one explanation per (instance, agent, kind) when no trajectory is stored for it
CREATE UNIQUE INDEX explanation_instance_agent_kind ON explanation(instance, agent, kind) WHERE trajectory IS NULL;

-- where an answer came from (imported from a results file, or scored here), the option order
-- the model saw (labels in display order; NULL: canonical order) and the seed that made it
ALTER TABLE qa_answer ADD COLUMN origin TEXT NOT NULL DEFAULT 'scored';
ALTER TABLE qa_answer ADD COLUMN permutation TEXT;
ALTER TABLE qa_answer ADD COLUMN seed INTEGER;
CREATE INDEX qa_answer_model ON qa_answer(model, question);

-- statistics published with a benchmark's results (ExplainBench results/evaluation/*.json):
-- computed by the authors over all their instances, kept beside what deltalens computes
CREATE TABLE published_metric (
  id          INTEGER PRIMARY KEY,
  benchmark   TEXT NOT NULL,
  type        TEXT NOT NULL,
  agent       TEXT NOT NULL,
  explanations TEXT NOT NULL,                     -- original | audited
  model       TEXT NOT NULL,
  mean        REAL,
  std         REAL,
  sem         REAL,
  run_values  TEXT,                               -- JSON list, one per sample run, when given
  per_instance TEXT,                              -- JSON {instance: [correct per sample]} for the instances given
  source_path TEXT,
  UNIQUE (benchmark, type, agent, explanations, model)
);
