-- 010: the stored-trace reader loads every frame's parent, call and end once per trace (one
-- query), so a frame's children are no longer looked up through an index: frame_children only
-- cost space and insert time.
DROP INDEX IF EXISTS frame_children;
