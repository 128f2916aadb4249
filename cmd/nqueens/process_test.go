package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/nqueens/nqueens/internal/apitest"
)

// A few tests need the real binary: what signals do to the process
// (SIGINT and SIGTERM, and SIGKILL of a worker in the middle of a board)
// and what a build says of itself. It is built once, with CGO off as the
// Dockerfile builds it, when the first of them asks.
var binary struct {
	once      sync.Once
	dir, path string
	err       error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// realBinary returns the path of the nqueens binary, built on first use.
func realBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		if binary.dir, binary.err = os.MkdirTemp("", "nqueens-cli-"); binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "nqueens")
		build := exec.Command("go", "build", "-o", binary.path, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// spawn starts the real binary with args, env added to the test's
// environment; SIGTERM stops it, and it is killed when the test ends if
// still running.
func spawn(t *testing.T, env []string, args ...string) *serving {
	t.Helper()
	return spawnIn(t, "", env, args...)
}

// spawnIn is spawn in the working directory dir ("": the test's).
func spawnIn(t *testing.T, dir string, env []string, args ...string) *serving {
	t.Helper()
	cmd := exec.Command(realBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	s := &serving{stdout: &apitest.SyncBuffer{}, stderr: &apitest.SyncBuffer{}, done: make(chan struct{}), cmd: cmd}
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.terminate = func() {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Error(err)
		}
	}
	go func() {
		defer close(s.done)
		cmd.Wait()
		s.code = cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-s.done
	})
	return s
}
