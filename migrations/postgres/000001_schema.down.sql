DROP TABLE solutions;
DROP TABLE chunks;
DROP TABLE boards;
