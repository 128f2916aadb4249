-- The three tables of the store, as on Postgres (docs/schema.md explains
-- every column). Times are UTC text in a fixed-width ISO 8601 form,
-- '2006-01-02T15:04:05.000000Z', so text order is time order; booleans
-- are 0 and 1.

CREATE TABLE boards (
    n                INTEGER PRIMARY KEY CHECK (n BETWEEN 1 AND 32),
    state            TEXT    NOT NULL DEFAULT 'pending'
                             CHECK (state IN ('pending', 'running', 'done', 'failed')),
    stores_solutions INTEGER NOT NULL DEFAULT 0 CHECK (stores_solutions IN (0, 1)),
    total_solutions  INTEGER,
    unique_solutions INTEGER,
    orbit1_classes   INTEGER,
    orbit2_classes   INTEGER,
    orbit4_classes   INTEGER,
    orbit8_classes   INTEGER,
    chunk_depth      INTEGER NOT NULL DEFAULT 0 CHECK (chunk_depth BETWEEN 0 AND n),
    chunks_total     INTEGER NOT NULL DEFAULT 0 CHECK (chunks_total >= 0),
    chunks_done      INTEGER NOT NULL DEFAULT 0 CHECK (chunks_done BETWEEN 0 AND chunks_total),
    solutions_done   INTEGER NOT NULL DEFAULT 0 CHECK (solutions_done >= 0),
    started_at       TEXT,
    finished_at      TEXT,
    duration_seconds REAL,
    solver_version   TEXT    NOT NULL DEFAULT '',
    last_error       TEXT,
    updated_at       TEXT    NOT NULL
) STRICT;

CREATE TABLE chunks (
    n                INTEGER NOT NULL REFERENCES boards (n) ON DELETE CASCADE,
    idx              INTEGER NOT NULL CHECK (idx >= 0),
    prefix           BLOB    NOT NULL,
    total_solutions  INTEGER,
    unique_solutions INTEGER,
    orbit1_classes   INTEGER,
    orbit2_classes   INTEGER,
    orbit4_classes   INTEGER,
    orbit8_classes   INTEGER,
    solutions_before INTEGER,
    unique_before    INTEGER,
    done_at          TEXT,
    PRIMARY KEY (n, idx),
    UNIQUE (n, prefix)
) STRICT, WITHOUT ROWID;

-- WITHOUT ROWID: the rows live in the primary key's b-tree, ordered by
-- (n, placement), with no second copy of the key.
CREATE TABLE solutions (
    n          INTEGER NOT NULL,
    placement  BLOB    NOT NULL CHECK (length(placement) = n),
    canonical  INTEGER NOT NULL CHECK (canonical IN (0, 1)),
    orbit_size INTEGER NOT NULL CHECK (orbit_size IN (1, 2, 4, 8)),
    PRIMARY KEY (n, placement)
) STRICT, WITHOUT ROWID;

CREATE INDEX solutions_canonical ON solutions (n, placement) WHERE canonical;
