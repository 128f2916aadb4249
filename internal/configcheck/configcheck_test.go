package configcheck_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nqueens/nqueens/internal/configcheck"
)

// TestIn: the error of a nested field is named by its path, wrapped or
// not; other errors pass through unchanged.
func TestIn(t *testing.T) {
	t.Parallel()
	inner := fmt.Errorf("graph: %w", configcheck.AtLeast("MaxPageSize", 0, 1))
	var e *configcheck.Error
	if err := configcheck.In("Graph", inner); !errors.As(err, &e) || e.Field != "Graph.MaxPageSize" ||
		err.Error() != "Graph.MaxPageSize must be at least 1, got 0" {
		t.Errorf("In(Graph, %v) = %v", inner, err)
	}
	other := errors.New("graph: Boards and Stored come together")
	if err := configcheck.In("Graph", other); err != other {
		t.Errorf("In(Graph, %v) = %v, want it unchanged", other, err)
	}
	if err := configcheck.In("Graph", nil); err != nil {
		t.Errorf("In(Graph, nil) = %v", err)
	}
}

// TestChecks: each check passes its bounds and names the field and the
// bounds past them.
func TestChecks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{configcheck.AtLeast("Workers", 1, 1), ""},
		{configcheck.AtLeast("Workers", 0, 1), "Workers must be at least 1, got 0"},
		{configcheck.Between("N", 0, 0, 32, "0: none"), ""},
		{configcheck.Between("N", 33, 0, 32, "0: none"), "N must be from 0 to 32 (0: none), got 33"},
		{configcheck.Between("N", 0, 1, 32, ""), "N must be from 1 to 32, got 0"},
		{configcheck.Positive("Timeout", 1), ""},
		{configcheck.Positive("Timeout", 0), "Timeout must be positive, got 0s"},
		{configcheck.NotNegative("Stop", 0), ""},
		{configcheck.NotNegative("Stop", -1), "Stop must not be negative, got -1ns"},
		{configcheck.Logger("Logger", false), ""},
		{configcheck.Logger("Logger", true), "Logger is nil; give a logger (slog.New(slog.DiscardHandler) for none)"},
	} {
		got := ""
		if tt.err != nil {
			got = tt.err.Error()
		}
		if got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
