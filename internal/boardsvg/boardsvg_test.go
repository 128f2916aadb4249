package boardsvg_test

import (
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/nqueens/internal/boardsvg"
	"github.com/nqueens/nqueens/solver"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/boardsvg -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run go test ./internal/boardsvg -run %s -update if the change is meant)\ngot:\n%s", path, t.Name(), got)
	}
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file string
		p    solver.Placement
		size int
	}{
		{"board8.svg", solver.Placement{0, 4, 7, 5, 2, 6, 1, 3}, 400}, // N=8's first solution
		{"board4-64px.svg", solver.Placement{1, 3, 0, 2}, 64},
	} {
		doc := boardsvg.Render(tt.p, tt.size)
		golden(t, tt.file, doc)

		// Well-formed XML of size×size pixels with one queen per row,
		// where the placement says.
		dec := xml.NewDecoder(strings.NewReader(doc))
		var uses [][2]string
		var width, height string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: not well-formed XML: %v\n%s", tt.file, err, doc)
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			attr := map[string]string{}
			for _, a := range se.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch se.Name.Local {
			case "svg":
				width, height = attr["width"], attr["height"]
			case "use":
				uses = append(uses, [2]string{attr["x"], attr["y"]})
			}
		}
		if want := strconv.Itoa(tt.size); width != want || height != want {
			t.Errorf("%s: width %q height %q, want %s", tt.file, width, height, want)
		}
		if len(uses) != len(tt.p) {
			t.Fatalf("%s: %d queens drawn, want %d", tt.file, len(uses), len(tt.p))
		}
		for r, c := range tt.p {
			if uses[r] != [2]string{strconv.Itoa(c), strconv.Itoa(r)} {
				t.Errorf("%s: queen of row %d drawn at %v, want x=%d y=%d", tt.file, r, uses[r], c, r)
			}
		}
	}
}
