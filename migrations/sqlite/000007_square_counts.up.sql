-- Statistics of every board: for each square, how many solutions have a
-- queen on it, and how many canonical solutions do (one per symmetry
-- class). WriteChunk adds each chunk's counts in the transaction that
-- writes the chunk, so the table is complete when the board is done.
-- One row per square, so that analysts filter, join and sum it as they do
-- the queens view. Not STRICT: SQLite 3.31 must read the file.
-- docs/schema.md explains it.
CREATE TABLE square_counts (
    n                INTEGER NOT NULL REFERENCES boards (n) ON DELETE CASCADE,
    row              INTEGER NOT NULL CHECK (row >= 0 AND row < n),
    col              INTEGER NOT NULL CHECK (col >= 0 AND col < n),
    solutions        INTEGER NOT NULL CHECK (solutions >= 0),
    unique_solutions INTEGER NOT NULL CHECK (unique_solutions BETWEEN 0 AND solutions),
    PRIMARY KEY (n, row, col)
) WITHOUT ROWID;
