-- Helpers for people who read the database with SQL (the sqlite3 shell
-- 3.44 or later); the service does not use them. SQLite has no functions
-- defined in SQL, so these are views over two small constant tables.
-- docs/schema.md shows how to use them.

-- The numbers 0..31: the rows of the largest board.
CREATE TABLE row_numbers (r INTEGER PRIMARY KEY) STRICT;
INSERT INTO row_numbers (r)
WITH RECURSIVE k (r) AS (SELECT 0 UNION ALL SELECT r + 1 FROM k WHERE r < 31)
SELECT r FROM k;

-- The 8 symmetries of the square, named as in the solver (rotations
-- clockwise, row 0 on top).
CREATE TABLE symmetries (k INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE) STRICT;
INSERT INTO symmetries (k, name) VALUES
    (1, 'identity'), (2, 'rot90'), (3, 'rot180'), (4, 'rot270'),
    (5, 'reflectVertical'), (6, 'reflectHorizontal'),
    (7, 'reflectDiagonal'), (8, 'reflectAntiDiagonal');

-- One row per queen of every stored solution: its row and column, with
-- the solution's own columns. The column is the byte's value, found as its
-- position in a blob of the bytes 0..31 (SQLite has no byte-to-integer
-- function).
CREATE VIEW queens AS
SELECT s.n, s.placement, s.canonical, s.orbit_size, r.r AS row,
       instr(X'000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F',
             substr(s.placement, r.r + 1, 1)) - 1 AS col
FROM solutions AS s
JOIN row_numbers AS r ON r.r < s.n;

-- Stored solutions in readable forms: columns as a JSON array, the board
-- as '.Q..' lines.
CREATE VIEW solution_details AS
SELECT n, placement,
       json_group_array(col ORDER BY row) AS columns,
       group_concat(substr('................................', 1, col) || 'Q' ||
                    substr('................................', 1, n - col - 1), char(10) ORDER BY row) AS board,
       canonical, orbit_size -- the same in every row of the group
FROM queens
GROUP BY n, placement;

-- The 8 images of every stored solution. A square (r, c) goes to (r2, c2),
-- with m = N - 1, as in the solver.
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

-- The canonical placement of every stored solution's class: the smallest
-- of its 8 images.
CREATE VIEW solution_classes AS
SELECT n, placement, min(image) AS canonical_placement
FROM solution_images
GROUP BY n, placement;

-- Counts per N in one query.
CREATE VIEW board_counts AS
SELECT n, state, total_solutions, unique_solutions,
       orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes,
       stores_solutions, chunks_done, chunks_total, duration_seconds
FROM boards;
