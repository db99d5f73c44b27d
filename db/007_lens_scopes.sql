-- 007: the function/class scopes lens build placed a run's states in (from the task's checkout),
-- so the explorer's reference tree is the one the run was scored against.
-- JSON {step idx: {file path: scope}}; NULL when no state of the run got a scope.
ALTER TABLE lens_score ADD COLUMN scopes TEXT;
