-- Analysts open this file with the SQLite they have: the sqlite3 shell of
-- their system (3.31 on Ubuntu 20.04, 3.40 on Debian 12), Python's sqlite3
-- module, DB Browser. One object in the schema that such a reader cannot
-- parse makes every statement fail ("malformed database schema"), so the
-- schema uses nothing that 3.31 lacks: no STRICT tables (3.37), no ORDER BY
-- inside an aggregate (3.44), no unhex (3.41), no JSON functions (optional
-- before 3.38), no -> or ->> (3.38). docs/schema.md lists the helpers.

-- The views go first: renaming a table checks every view that names one.
DROP VIEW solution_classes;
DROP VIEW solution_images;
DROP VIEW solution_details;
DROP VIEW queens;
DROP VIEW board_counts;

-- The tables are rebuilt without STRICT, in the same shape. Declared types
-- still convert what they can (INTEGER affinity); the CHECKs on typeof
-- keep the keys the types they are ordered by, which STRICT did before.
CREATE TABLE boards_v4 (
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
);

INSERT INTO boards_v4 (n, state, stores_solutions, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, chunk_depth, chunks_total,
    chunks_done, solutions_done, started_at, finished_at, duration_seconds, solver_version,
    last_error, updated_at, chunk_kind)
SELECT n, state, stores_solutions, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, chunk_depth, chunks_total,
    chunks_done, solutions_done, started_at, finished_at, duration_seconds, solver_version,
    last_error, updated_at, chunk_kind
FROM boards;

-- It references boards_v4, which becomes boards below: the old boards is
-- then referenced by nothing, and dropping it (an implicit DELETE, with
-- foreign keys on) cascades to no chunk.
CREATE TABLE chunks_v4 (
    n                INTEGER NOT NULL REFERENCES boards_v4 (n) ON DELETE CASCADE,
    idx              INTEGER NOT NULL CHECK (typeof(idx) = 'integer' AND idx >= 0),
    prefix           BLOB    CHECK (typeof(prefix) IN ('blob', 'null')),
    task             BLOB    CHECK (typeof(task) IN ('blob', 'null') AND length(task) > 0 AND length(task) % 4 = 0),
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
) WITHOUT ROWID;

INSERT INTO chunks_v4 (n, idx, prefix, task, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at)
SELECT n, idx, prefix, task, total_solutions, unique_solutions,
    orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes, solutions_before, unique_before, done_at
FROM chunks;

DROP TABLE chunks;
DROP TABLE boards;
ALTER TABLE boards_v4 RENAME TO boards;
ALTER TABLE chunks_v4 RENAME TO chunks;

-- WITHOUT ROWID: the rows live in the primary key's b-tree, ordered by
-- (n, placement), with no second copy of the key. A placement must be a
-- blob: text sorts by another rule.
CREATE TABLE solutions_v4 (
    n          INTEGER NOT NULL,
    placement  BLOB    NOT NULL CHECK (typeof(placement) = 'blob' AND length(placement) = n),
    canonical  INTEGER NOT NULL CHECK (canonical IN (0, 1)),
    orbit_size INTEGER NOT NULL CHECK (orbit_size IN (1, 2, 4, 8)),
    PRIMARY KEY (n, placement)
) WITHOUT ROWID;

INSERT INTO solutions_v4 (n, placement, canonical, orbit_size)
SELECT n, placement, canonical, orbit_size FROM solutions ORDER BY n, placement;

DROP TABLE solutions;
ALTER TABLE solutions_v4 RENAME TO solutions;
CREATE INDEX solutions_canonical ON solutions (n, placement) WHERE canonical;

-- The numbers 0..31: the rows of the largest board.
DROP TABLE row_numbers;
CREATE TABLE row_numbers (r INTEGER PRIMARY KEY);
INSERT INTO row_numbers (r)
WITH RECURSIVE k (r) AS (SELECT 0 UNION ALL SELECT r + 1 FROM k WHERE r < 31)
SELECT r FROM k;

-- The 8 symmetries of the square, named as in the solver (rotations
-- clockwise, row 0 on top), each as the moves that make it, in this
-- order: transpose (swap rows and columns), flip_rows (top to bottom),
-- flip_columns (left to right).
DROP TABLE symmetries;
CREATE TABLE symmetries (
    k            INTEGER PRIMARY KEY,
    name         TEXT    NOT NULL UNIQUE,
    transpose    INTEGER NOT NULL CHECK (transpose IN (0, 1)),
    flip_rows    INTEGER NOT NULL CHECK (flip_rows IN (0, 1)),
    flip_columns INTEGER NOT NULL CHECK (flip_columns IN (0, 1))
);
INSERT INTO symmetries (k, name, transpose, flip_rows, flip_columns) VALUES
    (1, 'identity',            0, 0, 0),
    (2, 'rot90',               1, 0, 1),
    (3, 'rot180',              0, 1, 1),
    (4, 'rot270',              1, 1, 0),
    (5, 'reflectVertical',     0, 0, 1),
    (6, 'reflectHorizontal',   0, 1, 0),
    (7, 'reflectDiagonal',     1, 0, 0),
    (8, 'reflectAntiDiagonal', 1, 1, 1);

-- SQLite has no byte-to-integer function: a byte's value is its position,
-- less one, in the blob of the bytes 0..31, and the byte of a value v is
-- that blob's (v+1)th. The views below build a text or a blob one row
-- after another with a recursive query, so that the order is the rows'
-- (group_concat promises no order before 3.44), and each works on one
-- solution at a time: a query for one N or one placement reads only those
-- rows of solutions.

-- One row per queen of every stored solution: its row and column, with
-- the solution's own columns.
CREATE VIEW queens AS
SELECT s.n, s.placement, s.canonical, s.orbit_size, r.r AS row,
       instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
             substr(s.placement, r.r + 1, 1)) - 1 AS col
FROM solutions AS s
JOIN row_numbers AS r ON r.r < s.n;

-- Stored solutions in readable forms: columns as a JSON array, the board
-- as '.Q..' lines. A line is n characters of 32 dots, a Q and 32 dots,
-- starting col characters before the Q.
CREATE VIEW solution_details AS
SELECT s.n, s.placement,
       (WITH RECURSIVE built (rows_done, so_far) AS (
            SELECT 0, ''
            UNION ALL
            SELECT rows_done + 1, so_far || CASE WHEN rows_done > 0 THEN ',' ELSE '' END ||
                (instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
                       substr(s.placement, rows_done + 1, 1)) - 1)
            FROM built WHERE rows_done < s.n)
        SELECT '[' || so_far || ']' FROM built WHERE rows_done = s.n) AS columns,
       (WITH RECURSIVE built (rows_done, so_far) AS (
            SELECT 0, ''
            UNION ALL
            SELECT rows_done + 1, so_far || CASE WHEN rows_done > 0 THEN char(10) ELSE '' END ||
                substr('................................Q................................',
                       34 - instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
                                  substr(s.placement, rows_done + 1, 1)),
                       s.n)
            FROM built WHERE rows_done < s.n)
        SELECT so_far FROM built WHERE rows_done = s.n) AS board,
       s.canonical, s.orbit_size
FROM solutions AS s;

-- The 8 images of every stored solution. Row j (0-based) of an image is
-- read from row i = j of the placement, or i = n - 1 - j with flip_rows;
-- the value there is the queen's column in row i, or with transpose the
-- row of the queen in column i (its position in the placement); with
-- flip_columns it becomes n - 1 - value, by reading the bytes n-1..0
-- instead of 0..n-1. The bytes are joined as text, then cast to a blob.
CREATE VIEW solution_images AS
SELECT s.n, s.placement, y.name AS symmetry,
       (WITH RECURSIVE built (rows_done, so_far) AS (
            SELECT 0, X''
            UNION ALL
            SELECT rows_done + 1, so_far || substr(
                CASE WHEN y.flip_columns
                     THEN substr(X'1F1E1D1C1B1A191817161514131211100F0E0D0C0B0A09080706050403020100', 33 - s.n)
                     ELSE X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F' END,
                CASE WHEN y.transpose
                     THEN instr(s.placement,
                                substr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
                                       CASE WHEN y.flip_rows THEN s.n - rows_done ELSE rows_done + 1 END, 1))
                     ELSE instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
                                substr(s.placement,
                                       CASE WHEN y.flip_rows THEN s.n - rows_done ELSE rows_done + 1 END, 1)) END,
                1)
            FROM built WHERE rows_done < s.n)
        SELECT CAST(so_far AS BLOB) FROM built WHERE rows_done = s.n) AS image
FROM solutions AS s
CROSS JOIN symmetries AS y;

-- The canonical placement of every stored solution's class: the smallest
-- of its 8 images.
CREATE VIEW solution_classes AS
SELECT s.n, s.placement,
       (SELECT min(i.image) FROM solution_images AS i
        WHERE i.n = s.n AND i.placement = s.placement) AS canonical_placement
FROM solutions AS s;

-- Counts per N in one query.
CREATE VIEW board_counts AS
SELECT n, state, total_solutions, unique_solutions,
       orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes,
       stores_solutions, chunks_done, chunks_total, duration_seconds
FROM boards;
