-- The helper views SQLite has, over the functions of version 2, so that a
-- query over them reads the same in both dialects: docs/schema.md shows
-- them. Each is a plain projection of solutions: a condition on n and
-- placement reaches its primary key.

-- One row per queen of every stored solution: its row and column, with
-- the solution's own columns. The rows are a constant series cut at n
-- rather than generate_series(0, n - 1) for each solution, whose size the
-- planner cannot know: it takes that for 1,000 rows a solution, and
-- answers a question about one N with a parallel scan of every solution.
CREATE VIEW queens AS
SELECT s.n, s.placement, s.canonical, s.orbit_size, r.row, get_byte(s.placement, r.row) AS col
FROM solutions AS s
JOIN generate_series(0, 31) AS r (row) ON r.row < s.n;

-- The 8 images of every stored solution, named as placement_images names
-- them.
CREATE VIEW solution_images AS
SELECT s.n, s.placement, i.symmetry, i.image
FROM solutions AS s
CROSS JOIN LATERAL placement_images(s.placement) AS i;

-- The canonical placement of every stored solution's class: the smallest
-- of its 8 images.
CREATE VIEW solution_classes AS
SELECT n, placement, canonical_placement(placement) AS canonical_placement
FROM solutions;
