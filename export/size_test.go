package export_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/export"
)

// TestSize: what Size says is what WriteTo writes, line for line and byte
// for byte, in every format, all solutions or canonical ones.
func TestSize(t *testing.T) {
	t.Parallel()
	for _, f := range []export.Format{export.CSV, export.NDJSON, export.Placement} {
		for n := 1; n <= 11; n++ {
			for _, unique := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%d/unique=%t", f, n, unique), func(t *testing.T) {
					t.Parallel()
					e, err := export.Plan(t.Context(), nil, export.Request{N: n, Unique: unique, Format: f}, 11)
					if err != nil {
						t.Fatal(err)
					}
					var out bytes.Buffer
					k, err := e.WriteTo(t.Context(), &out)
					if err != nil {
						t.Fatal(err)
					}
					lines, size := export.Size(f, n, k)
					if got := uint64(strings.Count(out.String(), "\n")); lines != got || size != uint64(out.Len()) {
						t.Errorf("Size says %d lines, %d bytes; WriteTo wrote %d lines, %d bytes", lines, size, got, out.Len())
					}
				})
			}
		}
	}
}
