-- DROP COLUMN needs SQLite 3.35; the service's driver has it. No view
-- names the column.
ALTER TABLE boards DROP COLUMN requested_by;
