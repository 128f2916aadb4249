-- Counts under a filter (pinned and blocked squares), computed by the
-- precompute in chunks: one row per (n, filter), filter being the
-- filter's canonical text (solver.Filter.Key, e.g. 'q0.3,e1.1'), and one
-- row per chunk counted. A retried chunk finds its row and adds nothing;
-- the last chunk written sums them into total and unique, in its own
-- transaction. docs/schema.md explains them.
CREATE TABLE filtered_counts (
    n            smallint    NOT NULL CHECK (n >= 1),
    filter       text        NOT NULL,
    state        text        NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed')),
    total        bigint      CHECK (total >= 0),
    unique_count bigint      CHECK (unique_count BETWEEN 0 AND total),
    chunks_total integer     NOT NULL CHECK (chunks_total >= 1),
    chunks_done  integer     NOT NULL DEFAULT 0 CHECK (chunks_done BETWEEN 0 AND chunks_total),
    requested_at timestamptz NOT NULL DEFAULT now(),
    last_error   text        CHECK (last_error IS NULL OR state = 'failed'),
    finished_at  timestamptz,
    PRIMARY KEY (n, filter),
    CHECK ((state = 'done') = (total IS NOT NULL AND unique_count IS NOT NULL AND finished_at IS NOT NULL))
);

CREATE TABLE filtered_count_chunks (
    n            smallint NOT NULL,
    filter       text     NOT NULL,
    idx          integer  NOT NULL CHECK (idx >= 0),
    total        bigint   NOT NULL CHECK (total >= 0),
    unique_count bigint   NOT NULL CHECK (unique_count BETWEEN 0 AND total),
    PRIMARY KEY (n, filter, idx),
    FOREIGN KEY (n, filter) REFERENCES filtered_counts (n, filter) ON DELETE CASCADE
);
