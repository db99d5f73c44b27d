-- 009: traces that fit real library tests.
--
-- storage 2 keeps a trace in its chunks alone (no trace_step row per event): each chunk of up to
-- 1,024 consecutive items holds its columns deflated in `data` (n uint32, then seq int32[n],
-- fid int32[n], line int32[n], kind uint8[n] — 0 line, 1 call, 2 return, 3 exception, +8 when the
-- item's value was not recorded —, aux float64[n] — the state hash, or the callee fid of a call —,
-- state length uint32[n]) and the items' states (UTF-8 JSON, one after the other) deflated in
-- `states`. A frame's own items are found through its children's seq ranges (frame_children).
-- storage 1 (traces made before 009) keeps its trace_step rows and is read as it was.
ALTER TABLE trace ADD COLUMN storage INTEGER NOT NULL DEFAULT 1;
ALTER TABLE trace_chunk ADD COLUMN states BLOB;

-- a traced file's text once per store, whatever the number of traces that ran it
CREATE TABLE source_text (
  hash TEXT PRIMARY KEY,            -- sha256 of the text
  text TEXT NOT NULL
) WITHOUT ROWID;
ALTER TABLE trace_source ADD COLUMN hash TEXT REFERENCES source_text(hash);
CREATE INDEX trace_source_hash ON trace_source(hash);

-- a frame's children in call order: how a storage-2 frame's own items are found
CREATE INDEX frame_children ON frame(trace, parent_fid, call_seq);
DROP INDEX frame_parent;
