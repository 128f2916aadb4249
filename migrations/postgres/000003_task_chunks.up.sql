-- A board that keeps counts only is planned as the counter's tasks
-- (solver.Tasks) rather than as prefixes: a task counts all the images of
-- its frame at once, without listing them. docs/schema.md explains the
-- columns.

ALTER TABLE boards
    ADD COLUMN chunk_kind text NOT NULL DEFAULT 'prefix' CHECK (chunk_kind IN ('prefix', 'task')),
    ADD CONSTRAINT boards_tasks_count_only CHECK (chunk_kind = 'prefix' OR NOT stores_solutions);

-- A chunk row names its chunk by its prefix or by its tasks (4 bytes each:
-- docs/schema.md), never both.
ALTER TABLE chunks
    ALTER COLUMN prefix DROP NOT NULL,
    ADD COLUMN task bytea CHECK (octet_length(task) > 0 AND octet_length(task) % 4 = 0),
    ADD CONSTRAINT chunks_prefix_or_task CHECK ((prefix IS NULL) <> (task IS NULL)),
    ADD CONSTRAINT chunks_n_task_key UNIQUE (n, task);
