-- A board that keeps counts only is planned as the counter's tasks
-- (solver.Tasks) rather than as prefixes, as on Postgres (docs/schema.md).

ALTER TABLE boards ADD COLUMN chunk_kind TEXT NOT NULL DEFAULT 'prefix'
    CHECK (chunk_kind IN ('prefix', 'task') AND (chunk_kind = 'prefix' OR stores_solutions = 0));

-- SQLite cannot drop a NOT NULL constraint in place: the chunks table is
-- rebuilt with prefix nullable and the task column (4 bytes a task) beside
-- it.
CREATE TABLE chunks_v3 (
    n                INTEGER NOT NULL REFERENCES boards (n) ON DELETE CASCADE,
    idx              INTEGER NOT NULL CHECK (idx >= 0),
    prefix           BLOB,
    task             BLOB    CHECK (length(task) > 0 AND length(task) % 4 = 0),
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
    UNIQUE (n, prefix),
    UNIQUE (n, task),
    CHECK ((prefix IS NULL) <> (task IS NULL))
) STRICT, WITHOUT ROWID;

INSERT INTO chunks_v3 (n, idx, prefix, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at)
SELECT n, idx, prefix, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at
FROM chunks;

DROP TABLE chunks;
ALTER TABLE chunks_v3 RENAME TO chunks;
