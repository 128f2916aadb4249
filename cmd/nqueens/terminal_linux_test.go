package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/nqueens/nqueens/internal/apitest"
	"github.com/nqueens/nqueens/internal/eventually"
)

// openPTY opens a pseudo-terminal: what a program writes to the slave,
// its terminal, the test reads from the master.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	var index uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlocking the pty: %v", errno)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&index))); errno != 0 {
		t.Fatalf("naming the pty: %v", errno)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", index), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

// readAll reads master until the terminal's last user closes it, into
// the buffer it returns; the channel is closed then.
func readAll(master *os.File) (*apitest.SyncBuffer, <-chan struct{}) {
	var out apitest.SyncBuffer
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		io.Copy(&out, master) // EIO once no one has the terminal open
	}()
	return &out, closed
}

// TestCountProgressOnTerminal counts N=17 on one core (seconds, on any
// machine: well past the bar's delay of a second, which N=16 can count
// within on a quiet one) with stderr on a terminal: it shows the bar,
// redrawn in place, and erases it; stdout, not a terminal, has the result
// alone.
func TestCountProgressOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	terminal, closed := readAll(master)
	var stdout bytes.Buffer
	if code := run(t.Context(), []string{"count", "17", "--workers", "1"}, console{lookupEnv: lookupIn(nil), stdout: &stdout, stderr: slave}); code != 0 {
		t.Fatalf("count 17: exit %d", code)
	}
	slave.Close()
	<-closed
	got := terminal.String()
	if !strings.HasPrefix(stdout.String(), "n 17\ntotal 95815104\n") {
		t.Errorf("stdout: %q", stdout.String())
	}
	if !strings.Contains(got, "] counting: ") || !strings.Contains(got, " tasks, ") || !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("stderr on a terminal: %q; want the bar redrawn on one line, then erased", got)
	}
	checkAgreement(t, "count 17's progress", strings.ReplaceAll(got, "\r", "\n"))
}

// TestCountInterrupt sends SIGINT (Ctrl-C) to the real binary counting
// N=24 on one core, which takes far longer than the test waits, once its
// bar shows on the terminal (stderr): the count stops, the bar is erased
// and the process says it was interrupted, exits 130 and prints no
// result.
func TestCountInterrupt(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	terminal, closed := readAll(master)
	cmd := exec.Command(realBinary(t), "count", "24", "--workers", "1")
	var stdout apitest.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child's copy is the last: the master reads EOF (EIO) after it exits
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()
	eventually.True(t, time.Minute, func() string {
		if !strings.Contains(terminal.String(), "] counting: ") {
			return "no progress bar on the terminal: " + terminal.String()
		}
		return ""
	})
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("count did not stop within 30s of SIGINT")
	}
	<-closed
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit code %d, want %d", code, exitInterrupted)
	}
	if got := terminal.String(); !strings.Contains(got, "\r\x1b[Knqueens count: interrupted") {
		t.Errorf("the terminal shows %q; want the bar erased, then \"nqueens count: interrupted\"", got)
	}
	if stdout.String() != "" {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

// TestExportParquetRefusesTerminal: a Parquet file is binary, so export
// refuses to write one to a terminal (exit 2, saying what to do), and
// writes nothing there; to a file it writes it.
func TestExportParquetRefusesTerminal(t *testing.T) {
	t.Parallel()
	_, slave := openPTY(t)
	env := lookupIn([]string{"DATABASE_URL=", "NQUEENS_SQLITE_PATH=" + t.TempDir() + "/none.db"})
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"export", "6", "--format", "parquet"}, console{lookupEnv: env, stdout: slave, stderr: &stderr}); code != exitUsage || !strings.Contains(stderr.String(), "give --output FILE") {
		t.Errorf("export 6 --format parquet to a terminal: exit %d, stderr %q; want %d saying to give --output", code, stderr.String(), exitUsage)
	}
	path := t.TempDir() + "/n6.parquet"
	stderr.Reset()
	if code := run(t.Context(), []string{"export", "6", "--format", "parquet", "--output", path}, console{lookupEnv: env, stdout: slave, stderr: &stderr}); code != 0 {
		t.Errorf("export 6 --format parquet --output: exit %d, stderr %q", code, stderr.String())
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(data, []byte("PAR1")) {
		t.Errorf("the file: %v, %.8q; want a Parquet file", err, data)
	}
}
