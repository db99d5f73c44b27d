-- 011: an author's review of a built question: accepted, rejected, or edited (the question as it
-- was before the edit and the re-validation that let the edit be saved are kept); a rebuild
-- that replaces a reviewed question is recorded too. The latest row is the question's status.
CREATE TABLE question_review (
  id          INTEGER PRIMARY KEY,
  question    TEXT NOT NULL REFERENCES question(id) ON DELETE CASCADE,
  reviewer    TEXT NOT NULL,
  action      TEXT NOT NULL CHECK (action IN ('accepted', 'rejected', 'edited', 'rebuilt')),
  note        TEXT,
  previous    TEXT,                                -- JSON: the question before an edit or rebuild
  validation  TEXT,                                -- JSON: the re-validation of an edit
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX question_review_question ON question_review(question, id);
