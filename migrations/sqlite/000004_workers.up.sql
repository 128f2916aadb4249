-- One row per precompute worker process while it runs: its heartbeat, as
-- on Postgres (docs/schema.md). Times are UTC text as in the other tables.
CREATE TABLE workers (
    id         TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
    started_at TEXT NOT NULL,
    seen_at    TEXT NOT NULL
) STRICT;
