-- 006: annotation sessions, adjudication and question flags (issue 6).

-- one label per person per item (question × explanation): a second label replaces the first;
-- how long the person took, and where the label came from (here, or an imported file)
ALTER TABLE annotation ADD COLUMN seconds REAL;
ALTER TABLE annotation ADD COLUMN origin TEXT NOT NULL DEFAULT 'here';
CREATE UNIQUE INDEX annotation_item ON annotation(question, explanation, annotator);
CREATE INDEX annotation_annotator ON annotation(annotator, created_at);

-- one final answer per item; a new adjudication replaces it
CREATE UNIQUE INDEX adjudication_item ON adjudication(question, explanation);

-- one verdict per author per question; a new flag replaces the author's previous one
CREATE UNIQUE INDEX question_flag_author ON question_flag(question, author);
