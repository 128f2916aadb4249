package graph_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"github.com/nqueens/nqueens/internal/apitest"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
		t.Fatalf("%v (run go test ./graph -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run go test ./graph -run %s -update if the change is meant)\ngot:\n%s", path, t.Name(), got)
	}
}

func TestSVGGolden(t *testing.T) {
	t.Parallel()
	b := apitest.Setup(t)
	var data struct {
		First struct {
			Placement []int
			Svg       string
		}
		Small struct{ Svg string }
	}
	b.Query(t, `{ first: solutionAt(n: 8, rank: 1) { placement svg }
		small: solution(placement: [1, 3, 0, 2]) { svg(size: 64) } }`, nil, &data)
	golden(t, "board8.svg", data.First.Svg)
	golden(t, "board4-64px.svg", data.Small.Svg)

	// Well-formed XML with one queen per row, where the placement says.
	for _, doc := range []string{data.First.Svg, data.Small.Svg} {
		dec := xml.NewDecoder(strings.NewReader(doc))
		var uses [][2]string
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("svg is not well-formed XML: %v\n%s", err, doc)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "use" {
				var x, y string
				for _, a := range se.Attr {
					switch a.Name.Local {
					case "x":
						x = a.Value
					case "y":
						y = a.Value
					}
				}
				uses = append(uses, [2]string{x, y})
			}
		}
		if doc == data.First.Svg {
			if len(uses) != 8 {
				t.Fatalf("%d queens drawn, want 8", len(uses))
			}
			for r, c := range data.First.Placement {
				if uses[r] != [2]string{itoa(c), itoa(r)} {
					t.Errorf("queen of row %d drawn at %v, want x=%d y=%d", r, uses[r], c, r)
				}
			}
		}
	}
	if !bytes.HasPrefix([]byte(data.Small.Svg), []byte(`<svg xmlns="http://www.w3.org/2000/svg"`)) ||
		!strings.Contains(data.Small.Svg, `width="64" height="64"`) {
		t.Errorf("svg(size: 64): %s", data.Small.Svg)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
