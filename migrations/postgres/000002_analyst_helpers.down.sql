DROP VIEW solution_details;
DROP VIEW board_counts;
DROP FUNCTION canonical_placement(bytea);
DROP FUNCTION placement_images(bytea);
DROP FUNCTION placement_board(bytea);
DROP FUNCTION placement_bytes(integer[]);
DROP FUNCTION placement_array(bytea);
