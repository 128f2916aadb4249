-- Boards planned by tasks have no place in the older schema: they go, with
-- their chunks, and are computed again when asked for.
DELETE FROM chunks WHERE n IN (SELECT n FROM boards WHERE chunk_kind = 'task');
DELETE FROM boards WHERE chunk_kind = 'task';

CREATE TABLE chunks_v2 (
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

INSERT INTO chunks_v2 (n, idx, prefix, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at)
SELECT n, idx, prefix, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at
FROM chunks;

DROP TABLE chunks;
ALTER TABLE chunks_v2 RENAME TO chunks;

ALTER TABLE boards DROP COLUMN chunk_kind;
