-- Back to version 3: STRICT tables, and the views that need SQLite 3.44.
-- Views first, as on the way up; then boards_v3 is made the parent of
-- chunks_v3 before the old tables go.
DROP VIEW board_counts;
DROP VIEW solution_classes;
DROP VIEW solution_images;
DROP VIEW solution_details;
DROP VIEW queens;

CREATE TABLE boards_v3 (
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
    updated_at       TEXT    NOT NULL,
    chunk_kind       TEXT    NOT NULL DEFAULT 'prefix'
                             CHECK (chunk_kind IN ('prefix', 'task') AND (chunk_kind = 'prefix' OR stores_solutions = 0))
) STRICT;

INSERT INTO boards_v3 (n, state, stores_solutions, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, chunk_depth, chunks_total,
    chunks_done, solutions_done, started_at, finished_at, duration_seconds, solver_version,
    last_error, updated_at, chunk_kind)
SELECT n, state, stores_solutions, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, chunk_depth, chunks_total,
    chunks_done, solutions_done, started_at, finished_at, duration_seconds, solver_version,
    last_error, updated_at, chunk_kind
FROM boards;

CREATE TABLE chunks_v3 (
    n                INTEGER NOT NULL REFERENCES boards_v3 (n) ON DELETE CASCADE,
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

INSERT INTO chunks_v3 (n, idx, prefix, task, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at)
SELECT n, idx, prefix, task, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at
FROM chunks;

DROP TABLE chunks;
DROP TABLE boards;
ALTER TABLE boards_v3 RENAME TO boards;
ALTER TABLE chunks_v3 RENAME TO chunks;

CREATE TABLE solutions_v3 (
    n          INTEGER NOT NULL,
    placement  BLOB    NOT NULL CHECK (length(placement) = n),
    canonical  INTEGER NOT NULL CHECK (canonical IN (0, 1)),
    orbit_size INTEGER NOT NULL CHECK (orbit_size IN (1, 2, 4, 8)),
    PRIMARY KEY (n, placement)
) STRICT, WITHOUT ROWID;

INSERT INTO solutions_v3 (n, placement, canonical, orbit_size)
SELECT n, placement, canonical, orbit_size FROM solutions ORDER BY n, placement;

DROP TABLE solutions;
ALTER TABLE solutions_v3 RENAME TO solutions;
CREATE INDEX solutions_canonical ON solutions (n, placement) WHERE canonical;

DROP TABLE row_numbers;
CREATE TABLE row_numbers (r INTEGER PRIMARY KEY) STRICT;
INSERT INTO row_numbers (r)
WITH RECURSIVE k (r) AS (SELECT 0 UNION ALL SELECT r + 1 FROM k WHERE r < 31)
SELECT r FROM k;

DROP TABLE symmetries;
CREATE TABLE symmetries (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;
INSERT INTO symmetries (k, name) VALUES
    (1, 'identity'), (2, 'rot90'), (3, 'rot180'), (4, 'rot270'),
    (5, 'reflectVertical'), (6, 'reflectHorizontal'),
    (7, 'reflectDiagonal'), (8, 'reflectAntiDiagonal');

CREATE VIEW queens AS
SELECT s.n, s.placement, s.canonical, s.orbit_size, r.r AS row,
       instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
             substr(s.placement, r.r + 1, 1)) - 1 AS col
FROM solutions AS s
JOIN row_numbers AS r ON r.r < s.n;

CREATE VIEW solution_details AS
SELECT n, placement,
       json_group_array(col ORDER BY row) AS columns,
       group_concat(substr('................................', 1, col) || 'Q' ||
                    substr('................................', 1, n - col - 1), char(10) ORDER BY row) AS board,
       canonical, orbit_size -- the same in every row of the group
FROM queens
GROUP BY n, placement;

CREATE VIEW solution_images AS
SELECT q.n, q.placement, y.name AS symmetry,
       unhex(group_concat(printf('%02X',
           CASE y.k WHEN 1 THEN q.col WHEN 2 THEN q.n - 1 - q.row WHEN 3 THEN q.n - 1 - q.col
                    WHEN 4 THEN q.row WHEN 5 THEN q.n - 1 - q.col WHEN 6 THEN q.col
                    WHEN 7 THEN q.row ELSE q.n - 1 - q.row END),
           '' ORDER BY
           CASE y.k WHEN 1 THEN q.row WHEN 2 THEN q.col WHEN 3 THEN q.n - 1 - q.row
                    WHEN 4 THEN q.n - 1 - q.col WHEN 5 THEN q.row WHEN 6 THEN q.n - 1 - q.row
                    WHEN 7 THEN q.col ELSE q.n - 1 - q.col END)) AS image
FROM queens AS q
CROSS JOIN symmetries AS y
GROUP BY q.n, q.placement, y.k;

CREATE VIEW solution_classes AS
SELECT n, placement, min(image) AS canonical_placement
FROM solution_images
GROUP BY n, placement;

CREATE VIEW board_counts AS
SELECT n, state, total_solutions, unique_solutions,
       orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes,
       stores_solutions, chunks_done, chunks_total, duration_seconds
FROM boards;
