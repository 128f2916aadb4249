package server

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writeBytes is a build that writes k bytes of b.
func writeBytes(b byte, k int) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write([]byte(strings.Repeat(string(b), k)))
		return err
	}
}

func readAll(t *testing.T, f *os.File) string {
	t.Helper()
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestParquetFilesBuildOnce: requests that come while a file is built
// wait for that build, and all read the one file it made.
func TestParquetFilesBuildOnce(t *testing.T) {
	t.Parallel()
	p, err := newParquetFiles(t.TempDir(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var builds atomic.Int32
	release := make(chan struct{})
	build := func(w io.Writer) error {
		builds.Add(1)
		<-release
		return writeBytes('a', 100)(w)
	}
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() {
			f, err := p.open(t.Context(), "nqueens-v1-8.parquet", build)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = readAll(t, f)
		})
	}
	time.Sleep(100 * time.Millisecond) // the requests arrive while it builds
	close(release)
	wg.Wait()
	if builds.Load() != 1 {
		t.Errorf("%d builds for 8 requests of one file; want 1", builds.Load())
	}
	for i, s := range got {
		if s != strings.Repeat("a", 100) {
			t.Errorf("request %d read %d bytes %.10q…", i, len(s), s)
		}
	}
}

// TestParquetFilesBuildFails: a build that fails halfway leaves no file
// (nor its temporary one); a request waiting for it builds it again; a
// waiting request whose context ends stops waiting.
func TestParquetFilesBuildFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := newParquetFiles(dir, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	const name = "nqueens-v1-9.parquet"
	failing := make(chan struct{})
	started := make(chan struct{})
	broken := errors.New("the store went away")
	done := make(chan error, 1)
	go func() {
		_, err := p.open(t.Context(), name, func(w io.Writer) error {
			close(started)
			writeBytes('x', 50)(w)
			<-failing
			return broken
		})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := p.open(ctx, name, writeBytes('b', 10)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiter whose context ended: %v, want its context's error", err)
	}
	second := make(chan string, 1)
	go func() {
		f, err := p.open(t.Context(), name, writeBytes('b', 10))
		if err != nil {
			t.Error(err)
			second <- ""
			return
		}
		second <- readAll(t, f)
	}()
	time.Sleep(50 * time.Millisecond) // the second request waits
	close(failing)
	if err := <-done; !errors.Is(err, broken) {
		t.Errorf("the failed build returned %v, want its error", err)
	}
	if got := <-second; got != strings.Repeat("b", 10) {
		t.Errorf("the waiting request read %q; want the file it built again", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Errorf("the directory holds %v; want only %s", entries, name)
	}
}

// TestParquetFilesBounded: the files stay within the budget, the least
// recently served going first; a file larger than the budget is served
// once and removed; a restart keeps the files of the current form and
// removes stale temporary ones and other forms.
func TestParquetFilesBounded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p, err := newParquetFiles(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	open := func(name string, k int) string {
		f, err := p.open(t.Context(), name, writeBytes(name[len("nqueens-v1-")], k))
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, f)
	}
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	open("nqueens-v1-1.parquet", 100)
	open("nqueens-v1-2.parquet", 100)
	open("nqueens-v1-1.parquet", 100) // 1 served last
	open("nqueens-v1-3.parquet", 100) // 300 bytes: 2 goes
	if exists("nqueens-v1-2.parquet") || !exists("nqueens-v1-1.parquet") || !exists("nqueens-v1-3.parquet") {
		t.Errorf("after 1, 2, 1, 3 within 250 bytes: 1 %t, 2 %t, 3 %t; want 2 gone", exists("nqueens-v1-1.parquet"), exists("nqueens-v1-2.parquet"), exists("nqueens-v1-3.parquet"))
	}
	if got := open("nqueens-v1-4.parquet", 300); len(got) != 300 || exists("nqueens-v1-4.parquet") {
		t.Errorf("a file larger than the budget: read %d bytes, still there %t; want 300, gone", len(got), exists("nqueens-v1-4.parquet"))
	}
	if p.total > 250 {
		t.Errorf("%d bytes kept, budget 250", p.total)
	}

	for _, name := range []string{"nqueens-v1-5.parquet.123.tmp", "nqueens-v1-7.parquet.456.tmp", "nqueens-v0-6.parquet", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("z"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 5's build was cut short by a crash long ago; 7's is another
	// server's, going on.
	old := time.Now().Add(-2 * parquetStaleTemp)
	if err := os.Chtimes(filepath.Join(dir, "nqueens-v1-5.parquet.123.tmp"), old, old); err != nil {
		t.Fatal(err)
	}
	again, err := newParquetFiles(dir, 250)
	if err != nil {
		t.Fatal(err)
	}
	if again.files["nqueens-v1-3.parquet"] == nil || exists("nqueens-v1-5.parquet.123.tmp") || !exists("nqueens-v1-7.parquet.456.tmp") || exists("nqueens-v0-6.parquet") || !exists("notes.txt") {
		t.Errorf("after a restart: kept %v; want the current files, no stale temporary or older ones, a build going on and others' files left", again.files)
	}
}
