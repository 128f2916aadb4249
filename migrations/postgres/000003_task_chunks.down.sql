-- Boards planned by tasks have no place in the older schema: they go, with
-- their chunks (ON DELETE CASCADE), and are computed again when asked for.
DELETE FROM boards WHERE chunk_kind = 'task';

ALTER TABLE chunks
    DROP CONSTRAINT chunks_n_task_key,
    DROP CONSTRAINT chunks_prefix_or_task,
    DROP COLUMN task,
    ALTER COLUMN prefix SET NOT NULL;

ALTER TABLE boards
    DROP CONSTRAINT boards_tasks_count_only,
    DROP COLUMN chunk_kind;
