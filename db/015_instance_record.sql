-- 015: SWE-bench instance records kept whole: the fields the dataset has beyond 001's, the row as
-- given (every field, ours and others), and when it was imported.
ALTER TABLE instance ADD COLUMN hints_text TEXT;
ALTER TABLE instance ADD COLUMN version TEXT;
ALTER TABLE instance ADD COLUMN environment_setup_commit TEXT;
ALTER TABLE instance ADD COLUMN created_at TEXT;
ALTER TABLE instance ADD COLUMN record TEXT;          -- JSON: the dataset row as given
ALTER TABLE instance ADD COLUMN imported_at TEXT;
