package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// parquetFiles keeps the Parquet files of the boards the store holds done,
// each made once and then served with Range and ETag (export.go): a done
// board never changes, and its file depends only on N, unique and the
// file's form, which its name carries (parquetFileVersion), so a file
// stays right across restarts and databases. The files together stay
// within maxBytes: past it the least recently served go, and a file
// larger than the whole budget is served once and removed (an open file
// reads on after its name is gone). One build of a file runs at a time;
// requests for it meanwhile wait, and build it again if it failed. A
// build writes a temporary file renamed into place when complete, so a
// failure halfway (or a crash) leaves no file that looks done.
type parquetFiles struct {
	dir      string
	maxBytes int64

	mu       sync.Mutex
	files    map[string]*parquetFile  // by name
	building map[string]chan struct{} // closed when the build ends
	total    int64
}

type parquetFile struct {
	size int64
	used time.Time
}

// parquetFileVersion names the form of the files: a change of their
// columns, encodings or codec changes it, and files of another form are
// removed on start.
const parquetFileVersion = "v1"

// parquetTempSuffix marks a build in progress (or cut short by a crash).
const parquetTempSuffix = ".tmp"

// parquetStaleTemp is how long a temporary file stays unwritten before
// it is taken for a crash's: a build writes each row group as it fills,
// seconds apart even on a loaded machine.
const parquetStaleTemp = time.Hour

// newParquetFiles opens dir (making it if need be), keeps the files of
// the current form it holds and removes the rest: older forms, and
// builds a crash cut short. Servers may share dir: a file another server
// removes is made again, and each keeps the files it knows of within
// maxBytes.
func newParquetFiles(dir string, maxBytes int64) (*parquetFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("parquet files: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("parquet files: %w", err)
	}
	p := &parquetFiles{dir: dir, maxBytes: maxBytes, files: map[string]*parquetFile{}, building: map[string]chan struct{}{}}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "nqueens-") || !strings.HasSuffix(name, ".parquet") && !strings.HasSuffix(name, parquetTempSuffix) {
			continue // not ours
		}
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		if strings.HasSuffix(name, parquetTempSuffix) {
			// A build that a crash cut short; a recent one may be
			// another server's, going on in a shared directory.
			if time.Since(info.ModTime()) > parquetStaleTemp {
				os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		if !strings.HasPrefix(name, "nqueens-"+parquetFileVersion+"-") || !info.Mode().IsRegular() {
			os.Remove(filepath.Join(dir, name))
			continue
		}
		p.files[name] = &parquetFile{size: info.Size(), used: info.ModTime()}
		p.total += info.Size()
	}
	p.mu.Lock()
	p.evict("")
	p.mu.Unlock()
	return p, nil
}

// open returns the file called name, building it with build when it is
// not there. It returns ctx's error when ctx ends while another request
// builds it, and build's error when this request's build fails. The
// caller closes the file.
func (p *parquetFiles) open(ctx context.Context, name string, build func(w io.Writer) error) (*os.File, error) {
	for {
		f, done, err := p.lookup(name)
		if f != nil || err != nil {
			return f, err
		}
		if done != nil { // another request builds it
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if err := p.build(name, build); err != nil {
			return nil, err
		}
	}
}

// cached returns the file called name when it is there (nil when not).
func (p *parquetFiles) cached(name string) *os.File {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files[name] == nil {
		return nil
	}
	f, err := p.openLocked(name)
	if err != nil {
		return nil
	}
	return f
}

// lookup opens the file called name when it is there; else it returns the
// channel of the build in progress, or, when none is, claims the build
// (both nil: the caller builds).
func (p *parquetFiles) lookup(name string) (*os.File, chan struct{}, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files[name] != nil {
		f, err := p.openLocked(name)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			return f, nil, err
		}
		// Removed behind our back: built again below.
	}
	if done, ok := p.building[name]; ok {
		return nil, done, nil
	}
	p.building[name] = make(chan struct{})
	return nil, nil, nil
}

// openLocked opens a known file and marks it used; p.mu is held.
func (p *parquetFiles) openLocked(name string) (*os.File, error) {
	f, err := os.Open(filepath.Join(p.dir, name))
	if err != nil {
		p.total -= p.files[name].size
		delete(p.files, name)
		return nil, err
	}
	p.files[name].used = time.Now()
	if p.files[name].size > p.maxBytes {
		p.remove(name) // larger than the budget: served this once
	}
	return f, nil
}

// build writes the file called name through a temporary file, then
// records it and makes room for it; it ends the build lookup claimed.
func (p *parquetFiles) build(name string, build func(w io.Writer) error) (err error) {
	defer func() {
		p.mu.Lock()
		close(p.building[name])
		delete(p.building, name)
		p.mu.Unlock()
	}()
	path := filepath.Join(p.dir, name)
	tmp, err := os.CreateTemp(p.dir, name+".*"+parquetTempSuffix)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := build(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	info, err := os.Stat(tmp.Name())
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.files[name] = &parquetFile{size: info.Size(), used: time.Now()}
	p.total += info.Size()
	p.evict(name)
	return nil
}

// evict removes the least recently used files until they fit in
// maxBytes, but not keep (the one just built): when it alone is larger,
// it goes once it is opened (openLocked). p.mu is held.
func (p *parquetFiles) evict(keep string) {
	if p.total <= p.maxBytes || p.files[keep] != nil && p.files[keep].size > p.maxBytes {
		return // within budget, or keep goes anyway
	}
	names := make([]string, 0, len(p.files))
	for name := range p.files {
		if name != keep {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return p.files[a].used.Compare(p.files[b].used) })
	for _, name := range names {
		if p.total <= p.maxBytes {
			return
		}
		p.remove(name)
	}
}

// remove forgets a file and removes it from the disk; p.mu is held.
func (p *parquetFiles) remove(name string) {
	os.Remove(filepath.Join(p.dir, name))
	p.total -= p.files[name].size
	delete(p.files, name)
}
