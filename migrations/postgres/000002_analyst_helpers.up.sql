-- Helpers for people who read the database with SQL; the service does not
-- use them. docs/schema.md shows how. Every function is IMMUTABLE and
-- STRICT: a NULL placement gives NULL.

-- The placement as an integer array of columns, row 0 first: '\x01030002'
-- gives {1,3,0,2}.
CREATE FUNCTION placement_array(placement bytea) RETURNS integer[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(get_byte(placement, r) ORDER BY r), '{}')
    FROM generate_series(0, octet_length(placement) - 1) AS r
$$;

-- The inverse: an integer array of columns as a stored placement, to look
-- a solution up: WHERE placement = placement_bytes('{1,3,0,2}').
CREATE FUNCTION placement_bytes(columns integer[]) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(set_byte('\x00'::bytea, 0, c), ''::bytea ORDER BY r), ''::bytea)
    FROM unnest(columns) WITH ORDINALITY AS t (c, r)
$$;

-- The board drawn as text, one line per row, top row first: '.Q..' lines.
CREATE FUNCTION placement_board(placement bytea) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce(string_agg(repeat('.', c) || 'Q' || repeat('.', octet_length(placement) - 1 - c), E'\n' ORDER BY r), '')
    FROM generate_series(0, octet_length(placement) - 1) AS r,
         LATERAL get_byte(placement, r) AS c
$$;

-- The 8 images of a placement under the symmetries of the square, named as
-- in the solver (rotations clockwise, row 0 on top). A square (r, c) goes
-- to (r2, c2), with m = N - 1.
CREATE FUNCTION placement_images(placement bytea)
RETURNS TABLE (symmetry text, image bytea)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT t.symmetry, string_agg(set_byte('\x00'::bytea, 0, t.c2), ''::bytea ORDER BY t.r2)
    FROM generate_series(0, octet_length(placement) - 1) AS r,
         LATERAL (SELECT get_byte(placement, r) AS c, octet_length(placement) - 1 AS m) AS q,
         LATERAL (VALUES
             (1, 'identity',            r,       q.c),
             (2, 'rot90',               q.c,     q.m - r),
             (3, 'rot180',              q.m - r, q.m - q.c),
             (4, 'rot270',              q.m - q.c, r),
             (5, 'reflectVertical',     r,       q.m - q.c),
             (6, 'reflectHorizontal',   q.m - r, q.c),
             (7, 'reflectDiagonal',     q.c,     r),
             (8, 'reflectAntiDiagonal', q.m - q.c, q.m - r)
         ) AS t (k, symmetry, r2, c2)
    GROUP BY t.k, t.symmetry
    ORDER BY t.k
$$;

-- The canonical placement of a solution's class: the smallest of its 8
-- images (solutions.canonical marks the stored solutions that are their
-- own).
CREATE FUNCTION canonical_placement(placement bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT image FROM placement_images(placement) ORDER BY image LIMIT 1
$$;

-- Counts per N in one query.
CREATE VIEW board_counts AS
SELECT n, state, total_solutions, unique_solutions,
       orbit1_classes, orbit2_classes, orbit4_classes, orbit8_classes,
       stores_solutions, chunks_done, chunks_total, duration_seconds
FROM boards;

-- Stored solutions in readable forms.
CREATE VIEW solution_details AS
SELECT n, placement, placement_array(placement) AS columns,
       placement_board(placement) AS board, canonical, orbit_size
FROM solutions;
