-- Who asked for a board's precompute (a name the client gave, e.g. the
-- $USER of `nqueens precompute`): NULL when not known, as for the boards
-- asked for before this version. The first request that made the row
-- wrote it; asking again leaves it. ADD COLUMN reads in SQLite 3.31 (the
-- oldest an analyst may open the file with: 000005).
ALTER TABLE boards ADD COLUMN requested_by TEXT;
