-- One row per precompute worker process while it runs: its heartbeat, as
-- on Postgres (docs/schema.md). Times are UTC text as in the other tables.
-- Not STRICT: analysts' SQLite from 3.31 must parse every table (migration
-- 5 says why); the CHECKs keep the columns text.
CREATE TABLE workers (
    id         TEXT PRIMARY KEY CHECK (typeof(id) = 'text' AND length(id) BETWEEN 1 AND 128),
    started_at TEXT NOT NULL CHECK (typeof(started_at) = 'text'),
    seen_at    TEXT NOT NULL CHECK (typeof(seen_at) = 'text')
);
