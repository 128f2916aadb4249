DROP VIEW solution_classes;
DROP VIEW solution_images;
DROP VIEW queens;
