// Command skips prints the tests that the last `go test` run of this
// module skipped because the machine lacks what they need (a Postgres
// server, a browser, Node.js's packages, the analysts' tools), with what
// would run them; -all prints every run's. Run it from the module:
//
//	go test ./... && go run ./internal/testgate/cmd/skips
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/nqueens/nqueens/internal/testgate"
)

func main() {
	all := flag.Bool("all", false, "print the skips of every run recorded, not only the last")
	remove := flag.Bool("clear", false, "remove the record")
	flag.Parse()
	path, err := testgate.Log()
	if err != nil {
		fmt.Fprintln(os.Stderr, "skips:", err)
		os.Exit(1)
	}
	if *remove {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(os.Stderr, "skips:", err)
			os.Exit(1)
		}
		return
	}
	entries, err := read(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "skips:", err)
		os.Exit(1)
	}
	if !*all {
		entries = testgate.LastRun(entries)
	}
	if len(entries) == 0 {
		fmt.Printf("no test skipped for want of a tool (record: %s)\n", path)
		return
	}
	fmt.Printf("%d tests skipped by go test (pid %d) from %s (record: %s):\n",
		len(entries), entries[0].Run, entries[0].Time.Local().Format(time.DateTime), path)
	for _, e := range entries {
		fmt.Println(e.Notice)
	}
}

// read is the entries of the skips file at path; none when it is missing.
func read(path string) ([]testgate.Entry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []testgate.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		e, err := testgate.ParseEntry(sc.Text())
		if err != nil {
			continue // a line cut short by a full disk, say: the others still count
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}
