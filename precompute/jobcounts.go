package precompute

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/riverqueue/river/rivertype"
)

// JobCount is how many jobs of one kind are in one state.
type JobCount struct {
	Kind  string
	State rivertype.JobState
	Count int64
}

// jobCountsSQL counts River's jobs by kind and state in one row, as
// "kind state count" triples joined by commas: River's drivers read one
// row of raw SQL only, and this text reads the same on Postgres and
// SQLite (3.44 and later have string_agg).
const jobCountsSQL = `SELECT coalesce(string_agg(kind || ' ' || state || ' ' || n, ','), '')
FROM (SELECT kind, state, count(*) AS n FROM river_job GROUP BY kind, state) AS counts`

// JobCounts counts the jobs in River's table (river_job, every process's
// jobs), by kind and state; the pairs without jobs are left out.
func (e *Engine[TTx]) JobCounts(ctx context.Context) ([]JobCount, error) {
	var triples string
	if err := e.db.QueryRow(ctx, jobCountsSQL).Scan(&triples); err != nil {
		return nil, fmt.Errorf("precompute: counting jobs: %w", err)
	}
	var counts []JobCount
	for triple := range strings.SplitSeq(triples, ",") {
		f := strings.Fields(triple)
		if len(f) != 3 {
			continue // "" when there are no jobs
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("precompute: counting jobs: %q: %w", triple, err)
		}
		counts = append(counts, JobCount{Kind: f[0], State: rivertype.JobState(f[1]), Count: n})
	}
	return counts, nil
}
