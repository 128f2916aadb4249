DROP VIEW board_counts;
DROP VIEW solution_classes;
DROP VIEW solution_images;
DROP VIEW solution_details;
DROP VIEW queens;
DROP TABLE symmetries;
DROP TABLE row_numbers;
