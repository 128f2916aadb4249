-- Counts under a filter (pinned and blocked squares), computed by the
-- precompute in chunks: one row per (n, filter), filter being the
-- filter's canonical text (solver.Filter.Key, e.g. 'q0.3,e1.1'), and one
-- row per chunk counted. A retried chunk finds its row and adds nothing;
-- the last chunk written sums them into total and unique, in its own
-- transaction. Not STRICT: SQLite 3.31 must read the file.
-- docs/schema.md explains them.
CREATE TABLE filtered_counts (
    n            INTEGER NOT NULL CHECK (n >= 1),
    filter       TEXT    NOT NULL,
    state        TEXT    NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
    total        INTEGER CHECK (total >= 0),
    unique_count INTEGER CHECK (unique_count BETWEEN 0 AND total),
    chunks_total INTEGER NOT NULL CHECK (chunks_total >= 1),
    chunks_done  INTEGER NOT NULL DEFAULT 0 CHECK (chunks_done BETWEEN 0 AND chunks_total),
    requested_at TEXT    NOT NULL,
    last_error   TEXT    CHECK (last_error IS NULL OR state = 'failed'),
    finished_at  TEXT,
    PRIMARY KEY (n, filter),
    CHECK ((state = 'done') = (total IS NOT NULL AND unique_count IS NOT NULL AND finished_at IS NOT NULL))
);

CREATE TABLE filtered_count_chunks (
    n            INTEGER NOT NULL,
    filter       TEXT    NOT NULL,
    idx          INTEGER NOT NULL CHECK (idx >= 0),
    total        INTEGER NOT NULL CHECK (total >= 0),
    unique_count INTEGER NOT NULL CHECK (unique_count BETWEEN 0 AND total),
    PRIMARY KEY (n, filter, idx),
    FOREIGN KEY (n, filter) REFERENCES filtered_counts (n, filter) ON DELETE CASCADE
) WITHOUT ROWID;
