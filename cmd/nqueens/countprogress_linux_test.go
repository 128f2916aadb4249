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

// TestCountProgressOnTerminal counts N=16 on one core (seconds, on any
// machine) with stderr on a terminal: it shows the bar, redrawn in place,
// and erases it; stdout, a pipe, has the result alone.
func TestCountProgressOnTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	if newCountProgress(slave, time.Now()) == nil {
		t.Fatal("no progress on a terminal")
	}
	cmd := exec.Command(binary, "count", "16", "--workers", "1")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child's copy is the last: the master reads EOF (EIO) after it exits
	terminal := make(chan string)
	go func() {
		b, _ := io.ReadAll(master)
		terminal <- string(b)
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("count 16: %v", err)
	}
	got := <-terminal
	if !strings.HasPrefix(stdout.String(), "n 16\ntotal 14772512\n") {
		t.Errorf("stdout: %q", stdout.String())
	}
	if !strings.Contains(got, "] counting: ") || !strings.Contains(got, " tasks, ") || !strings.HasSuffix(got, "\r\x1b[K") || strings.Contains(got, "\n") {
		t.Errorf("stderr on a terminal: %q; want the bar redrawn on one line, then erased", got)
	}
	checkAgreement(t, "count 16's progress", strings.ReplaceAll(got, "\r", "\n"))
}
