ALTER TABLE boards DROP COLUMN requested_by;
