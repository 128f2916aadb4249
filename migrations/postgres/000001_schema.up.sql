-- The three tables of the store. docs/schema.md explains every column.

-- One row per board size N: state, final counts, plan and progress.
CREATE TABLE boards (
    n                smallint    PRIMARY KEY CHECK (n BETWEEN 1 AND 32),
    state            text        NOT NULL DEFAULT 'pending'
                                 CHECK (state IN ('pending', 'running', 'done', 'failed')),
    stores_solutions boolean     NOT NULL DEFAULT false,
    -- Final counts: NULL until the board is done.
    total_solutions  bigint,
    unique_solutions bigint,
    orbit1_classes   bigint,
    orbit2_classes   bigint,
    orbit4_classes   bigint,
    orbit8_classes   bigint,
    -- The plan (zero while pending) and the progress WriteChunk keeps.
    chunk_depth      smallint    NOT NULL DEFAULT 0 CHECK (chunk_depth BETWEEN 0 AND n),
    chunks_total     integer     NOT NULL DEFAULT 0 CHECK (chunks_total >= 0),
    chunks_done      integer     NOT NULL DEFAULT 0 CHECK (chunks_done BETWEEN 0 AND chunks_total),
    solutions_done   bigint      NOT NULL DEFAULT 0 CHECK (solutions_done >= 0),
    started_at       timestamptz,
    finished_at      timestamptz,
    duration_seconds double precision,
    solver_version   text        NOT NULL DEFAULT '',
    last_error       text,
    updated_at       timestamptz NOT NULL DEFAULT now()
);

-- One row per prefix chunk of a board: the unit of work, and with its
-- prefix sums (filled when the board is done) the way from a rank to a
-- placement and back without counting the board.
CREATE TABLE chunks (
    n                smallint    NOT NULL REFERENCES boards (n) ON DELETE CASCADE,
    idx              integer     NOT NULL CHECK (idx >= 0),
    prefix           bytea       NOT NULL,
    total_solutions  bigint,
    unique_solutions bigint,
    orbit1_classes   bigint,
    orbit2_classes   bigint,
    orbit4_classes   bigint,
    orbit8_classes   bigint,
    solutions_before bigint,
    unique_before    bigint,
    done_at          timestamptz,
    PRIMARY KEY (n, idx),
    UNIQUE (n, prefix)
);

-- Every stored solution. The key is (n, placement) with the placement one
-- byte per row, so byte order is lexicographic order and a page is an index
-- range scan. Columns are ordered fixed-width first so that the row packs
-- into 20 bytes of data after its header; no foreign key, because a per-row
-- trigger would halve the speed of bulk loads (WriteChunk writes rows only
-- for a planned chunk, in the transaction that marks it done).
CREATE TABLE solutions (
    n          smallint NOT NULL,
    orbit_size smallint NOT NULL CHECK (orbit_size IN (1, 2, 4, 8)),
    canonical  boolean  NOT NULL,
    placement  bytea    NOT NULL CHECK (octet_length(placement) = n),
    CONSTRAINT solutions_pkey PRIMARY KEY (n, placement) WITH (fillfactor = 100)
);

-- Unique pages walk this index as all pages walk the primary key: one
-- entry per canonical solution, about an eighth of the rows.
CREATE INDEX solutions_canonical ON solutions (n, placement) WITH (fillfactor = 100) WHERE canonical;
