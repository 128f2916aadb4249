-- One row per precompute worker process (serve, worker, precompute --wait)
-- while it runs: its heartbeat. A process refreshes seen_at every second;
-- the jobs River shows running under a worker not seen for a while
-- (--rescue-after) are run again elsewhere, since that worker is gone
-- (killed, its machine lost). docs/schema.md explains the columns.
CREATE TABLE workers (
    id         text        PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
    started_at timestamptz NOT NULL DEFAULT now(),
    seen_at    timestamptz NOT NULL DEFAULT now()
);
