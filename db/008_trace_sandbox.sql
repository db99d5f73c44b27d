-- 008: how each trace's run was confined: "bwrap 0.8.0", "none (--no-sandbox)" or
-- "none (bundled demo; …)"; NULL for traces imported from files and traces made before 008.
ALTER TABLE trace ADD COLUMN sandbox TEXT;
