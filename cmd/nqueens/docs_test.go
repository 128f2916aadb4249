package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/nqueens/internal/eventually"
	"github.com/nqueens/nqueens/internal/testgate"
)

// The docs are executed: every fenced block of these files runs against
// one real server (the real binary, serve on a fresh SQLite file with
// N=1..docsPrecompute computed), in file order, and its output is checked,
// so that what a reader copies works and says what it shows.
var executedDocs = []string{"README.md", "docs/API.md", "docs/CLI.md"}

// docsPrecompute is the largest N the docs' server computes before the
// blocks run (the docs' examples use boards up to it).
const docsPrecompute = 10

// docsAdminToken is the admin token of the docs' server, in the blocks'
// environment as NQUEENS_ADMIN_TOKEN.
const docsAdminToken = "docs-test-admin-token"

// How a block is run, by the language of its fence:
//
//	console  lines "$ command" (a line ending in \ goes on), each followed by
//	         its output (stdout and stderr, as a terminal shows them); "…"
//	         in an output line stands for any text
//	sh       a script run with bash -e: it must exit 0
//	graphql  a query POSTed to /graphql; the json block right after it is
//	         the answer, where a string "…" stands for any value
//
// Any other block, or one not to run (a command that would not return,
// needs Docker, …), follows an HTML comment that says why:
// <!-- not run: why -->, or <!-- generated: … --> for the blocks that
// TestCLIReference writes. In commands, localhost:8080 is the server's
// address; they run in a directory that holds its SQLite file, nqueens.db,
// with the binary first on PATH as nqueens.
type docBlock struct {
	file   string
	line   int // of the opening fence
	lang   string
	body   string
	skip   string // why it is not run, from the comment before it
	answer *docBlock
}

var notRunComment = regexp.MustCompile(`^<!-- (not run|generated): .+-->$`)

// docBlocks reads the fenced blocks of a markdown file.
func docBlocks(t *testing.T, file string) []*docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", file))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*docBlock
	var cur *docBlock
	var body []string
	prev := "" // the last line that is not blank, outside blocks
	for i, line := range strings.Split(string(data), "\n") {
		if cur != nil {
			if strings.TrimSpace(line) == "```" {
				cur.body = strings.Join(body, "\n")
				blocks = append(blocks, cur)
				cur, body = nil, nil
				continue
			}
			body = append(body, line)
			continue
		}
		if lang, ok := strings.CutPrefix(line, "```"); ok {
			cur = &docBlock{file: file, line: i + 1, lang: strings.TrimSpace(lang)}
			if m := notRunComment.FindString(strings.TrimSpace(prev)); m != "" {
				cur.skip = m
			}
			continue
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	if cur != nil {
		t.Fatalf("%s:%d: the block is not closed", file, cur.line)
	}
	// A graphql block's answer is the json block right after it.
	var kept []*docBlock
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		if b.lang == "graphql" && b.skip == "" {
			if i+1 >= len(blocks) || blocks[i+1].lang != "json" || blocks[i+1].skip != "" {
				t.Errorf("%s:%d: a graphql block is followed by its answer, a json block", file, b.line)
				continue
			}
			b.answer = blocks[i+1]
			i++
		}
		kept = append(kept, b)
	}
	return kept
}

// docsTools is the suite of the docs' commands, which need curl and the
// sqlite3 shell (analysts' tools: .ci/run installs them).
var docsTools = testgate.Suite{
	Name:    "the docs' commands (README.md, docs/API.md, docs/CLI.md)",
	Require: "NQUEENS_REQUIRE_ANALYST_TOOLS",
	Enable:  "apt-get install -y curl sqlite3 (docs/TESTING.md)",
}

// TestDocsRun runs every block of executedDocs against one server.
func TestDocsRun(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "sqlite3"} {
		if _, err := exec.LookPath(tool); err != nil {
			docsTools.Missing(t, tool+" is not installed")
		}
	}
	var all []*docBlock
	for _, f := range executedDocs {
		all = append(all, docBlocks(t, f)...)
	}
	for _, b := range all {
		if b.skip == "" && !slices.Contains([]string{"console", "sh", "graphql"}, b.lang) {
			t.Errorf("%s:%d: a %q block is neither run (console, sh, graphql) nor marked <!-- not run: why -->", b.file, b.line, b.lang)
		}
	}
	if t.Failed() {
		return
	}

	d := startDocsServer(t)
	for _, b := range all {
		if b.skip != "" {
			continue
		}
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			switch b.lang {
			case "console":
				d.runConsole(t, b)
			case "sh":
				if out, err := d.shell(b.body); err != nil {
					t.Errorf("%s:%d: the script failed (%v):\n%s\noutput:\n%s", b.file, b.line, err, b.body, out)
				}
			case "graphql":
				d.runQuery(t, b)
			}
		})
	}
}

// docsServer is the server the docs' blocks run against, and where.
type docsServer struct {
	dir  string // the blocks' working directory, with nqueens.db
	bin  string // a directory with the binary as nqueens
	addr string // host:port that stands for localhost:8080
	url  string // its /graphql
}

func startDocsServer(t *testing.T) *docsServer {
	t.Helper()
	d := &docsServer{dir: t.TempDir(), bin: filepath.Dir(realBinary(t))}
	s := spawnIn(t, d.dir, []string{"DATABASE_URL=", fmt.Sprintf("NQUEENS_PRECOMPUTE=1-%d", docsPrecompute),
		"NQUEENS_ADMIN_TOKEN=" + docsAdminToken, "NQUEENS_LOG_LEVEL=warn", "NQUEENS_PARQUET_DIR=parquet"}, "serve", "--addr", "127.0.0.1:0", "--sqlite-path", "nqueens.db")
	s.waitServing(t)
	u, err := url.Parse(s.url)
	if err != nil {
		t.Fatal(err)
	}
	d.addr, d.url = u.Host, "http://"+u.Host+"/graphql"
	// The blocks start once the boards they show are done.
	eventually.True(t, 3*time.Minute, func() string {
		if s.exited() {
			t.Fatalf("serve exited %d; stderr:\n%s", s.code, s.stderr.String())
		}
		var got struct {
			Data struct{ Boards []struct{ N int } }
		}
		if err := d.post(`{ boards(state: DONE) { n } }`, &got); err != nil {
			return err.Error()
		}
		if len(got.Data.Boards) < docsPrecompute {
			return fmt.Sprintf("%d of %d boards done", len(got.Data.Boards), docsPrecompute)
		}
		return ""
	})
	return d
}

// post sends query to the server and decodes its answer into out.
func (d *docsServer) post(query string, out any) error {
	body, _ := json.Marshal(map[string]string{"query": query})
	req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+docsAdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%w: %s", err, data)
	}
	return nil
}

// shell runs script with bash in the docs' directory, localhost:8080
// being the server, and returns what it wrote on stdout and stderr.
func (d *docsServer) shell(script string) (string, error) {
	script = strings.ReplaceAll(script, "localhost:8080", d.addr)
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
	cmd.Dir = d.dir
	cmd.Env = append(os.Environ(), "PATH="+d.bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DATABASE_URL=", "NQUEENS_SQLITE_PATH=nqueens.db", "NQUEENS_ADMIN_TOKEN="+docsAdminToken, "COLUMNS=80")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(2 * time.Minute): // a hung command, not a slow one
		cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("still running after 2 minutes")
	}
}

// runConsole runs each "$ command" of b and checks its output.
func (d *docsServer) runConsole(t *testing.T, b *docBlock) {
	t.Helper()
	type step struct {
		cmd  string
		want []string
	}
	var steps []step
	lines := strings.Split(b.body, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			for strings.HasSuffix(cmd, "\\") && i+1 < len(lines) {
				i++
				cmd += "\n" + lines[i]
			}
			steps = append(steps, step{cmd: cmd})
			continue
		}
		if len(steps) == 0 {
			t.Fatalf("%s:%d: a console block starts with a command (\"$ …\"), not %q", b.file, b.line, line)
		}
		steps[len(steps)-1].want = append(steps[len(steps)-1].want, line)
	}
	for _, s := range steps {
		for i := range s.want { // the output names the address it was given
			s.want[i] = strings.ReplaceAll(s.want[i], "localhost:8080", d.addr)
		}
		out, _ := d.shell(s.cmd) // the exit status shows in the output, as at a terminal
		got := strings.Split(strings.TrimRight(out, "\n"), "\n")
		if out == "" {
			got = nil
		}
		if !linesMatch(s.want, got) {
			t.Errorf("%s:%d: $ %s\nthe docs show:\n%s\nit prints:\n%s", b.file, b.line, s.cmd, strings.Join(s.want, "\n"), out)
		}
	}
}

// linesMatch says whether got is want, "…" in a line of want standing for
// any text.
func linesMatch(want, got []string) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		parts := strings.Split(want[i], "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		if !regexp.MustCompile(`^` + strings.Join(parts, `.*`) + `$`).MatchString(got[i]) {
			return false
		}
	}
	return true
}

// runQuery sends b's query and checks the answer against b's json block.
func (d *docsServer) runQuery(t *testing.T, b *docBlock) {
	t.Helper()
	var want, got any
	if err := json.Unmarshal([]byte(b.answer.body), &want); err != nil {
		t.Fatalf("%s:%d: the answer shown is not JSON: %v", b.file, b.answer.line, err)
	}
	if err := d.post(b.body, &got); err != nil {
		t.Fatalf("%s:%d: %v", b.file, b.line, err)
	}
	if path, ok := jsonMatch(want, got, "$"); !ok {
		gotText, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("%s:%d: the answer differs at %s from the one shown at line %d; it is:\n%s", b.file, b.line, path, b.answer.line, gotText)
	}
}

// jsonMatch compares decoded JSON, a string "…" in want standing for any
// value and "…" within a string for any text; it returns where the first
// difference is.
func jsonMatch(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case string:
		if g, ok := got.(string); ok && linesMatch([]string{w}, []string{g}) {
			return "", true
		}
		if w == "…" {
			return "", true // any value, not only a string
		}
		return path, false
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return path + "." + k, false
			}
			if p, ok := jsonMatch(wv, gv, path+"."+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := jsonMatch(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	}
	if !reflect.DeepEqual(want, got) {
		return path, false
	}
	return "", true
}

// TestDocsMatchers: the comparisons of TestDocsRun fail where they should.
func TestDocsMatchers(t *testing.T) {
	t.Parallel()
	if !linesMatch([]string{"seconds …", "n 8"}, []string{"seconds 0.01", "n 8"}) {
		t.Error("… does not stand for any text")
	}
	for _, got := range [][]string{{"seconds 0.01"}, {"seconds 0.01", "n 9"}, {"second 1", "n 8"}, {"seconds 0.01", "n 8", "more"}} {
		if linesMatch([]string{"seconds …", "n 8"}, got) {
			t.Errorf("%q matches the lines shown", got)
		}
	}
	var want, same, other any
	json.Unmarshal([]byte(`{"data":{"count":{"n":8,"total":"92","seconds":"…","msg":"took … s"},"list":[1,2]}}`), &want)
	json.Unmarshal([]byte(`{"data":{"count":{"n":8,"total":"92","seconds":0.5,"msg":"took 3 s"},"list":[1,2]}}`), &same)
	if _, ok := jsonMatch(want, same, "$"); !ok {
		t.Error("an answer that matches does not")
	}
	for _, g := range []string{
		`{"data":{"count":{"n":8,"total":"93","seconds":0.5,"msg":"took 3 s"},"list":[1,2]}}`,
		`{"data":{"count":{"n":8,"total":"92","seconds":0.5,"msg":"took 3 s"},"list":[1]}}`,
		`{"data":{"count":{"n":8,"total":"92","seconds":0.5,"msg":"took 3 s","more":1},"list":[1,2]}}`,
		`{"data":{"count":{"n":8,"total":"92","msg":"took 3 s"},"list":[1,2]}}`,
		`{"data":{"count":{"n":8,"total":"92","seconds":0.5,"msg":"took 3 min"},"list":[1,2]}}`,
		`{"data":null}`,
	} {
		json.Unmarshal([]byte(g), &other)
		if path, ok := jsonMatch(want, other, "$"); ok {
			t.Errorf("%s matches the answer shown", g)
		} else if path == "" {
			t.Errorf("%s: no path to the difference", g)
		}
	}
}
