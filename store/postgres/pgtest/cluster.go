package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// Cluster is a Postgres server of one test's own, for tests that stop and
// start it (the shared test server must stay up for the others): initdb
// into a temporary folder, pg_ctl on a free port of 127.0.0.1, its unix
// socket in that folder too. It is created stopped.
//
// Postgres refuses to run as root: when the test runs as root (as CI
// does), initdb and pg_ctl run as the postgres user, which owns the
// folder.
type Cluster struct {
	// URL connects to the cluster's postgres database as its superuser.
	URL string

	tb        testing.TB
	bin       string   // the folder of initdb and pg_ctl
	dir, data string   // the cluster's folder and its data directory
	runAs     []string // the command prefix that runs as the postgres user, if any
	port      int
}

// NewCluster initializes a cluster, stopped; it is stopped and removed
// when the test ends. Without Postgres's server programs the test skips,
// unless NQUEENS_REQUIRE_POSTGRES=1 makes that a failure.
func NewCluster(tb testing.TB) *Cluster {
	tb.Helper()
	bin, err := serverPrograms()
	if err != nil {
		Suite.Missing(tb, "a test that runs a Postgres cluster of its own needs Postgres's server programs: "+err.Error())
	}
	// Not tb.TempDir: its parent is private to the test's user (root),
	// and the postgres user must reach the folder.
	dir, err := os.MkdirTemp("", "nqueens-pgcluster-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	c := &Cluster{tb: tb, bin: bin, dir: dir, data: filepath.Join(dir, "data"), port: freePort(tb)}
	if os.Geteuid() == 0 {
		c.runAs = asPostgres(tb, dir)
	}
	c.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.run("initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync")
	tb.Cleanup(func() {
		// Whatever state the test left it in; an error means it was stopped.
		_ = c.pgCtl("stop", "-m", "immediate")
	})
	return c
}

// Start starts the cluster and waits until it accepts connections.
func (c *Cluster) Start() {
	c.tb.Helper()
	// fsync off: the data is thrown away, and the machine is shared.
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -F", c.port, c.dir)
	if err := c.pgCtl("start", "-l", filepath.Join(c.dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		c.tb.Fatalf("%v\nserver log:\n%s", err, log)
	}
}

// Stop stops the cluster as an operator would (pg_ctl stop -m fast): it
// ends the sessions, rolling back their transactions, and waits until the
// server is down.
func (c *Cluster) Stop() {
	c.tb.Helper()
	if err := c.pgCtl("stop", "-m", "fast"); err != nil {
		c.tb.Fatal(err)
	}
}

func (c *Cluster) pgCtl(args ...string) error {
	return c.command("pg_ctl", append([]string{"-D", c.data, "-w", "-t", "60"}, args...)...)
}

func (c *Cluster) run(program string, args ...string) {
	c.tb.Helper()
	if err := c.command(program, args...); err != nil {
		c.tb.Fatal(err)
	}
}

// command runs one of the server programs, as the postgres user when the
// test runs as root.
func (c *Cluster) command(program string, args ...string) error {
	argv := slices.Concat(c.runAs, []string{filepath.Join(c.bin, program)}, args)
	cmd := osexec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.dir // the test's own folder may be closed to the postgres user
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %v: %v\n%s", program, args, err, out.Bytes())
	}
	return nil
}

// serverPrograms finds the folder of initdb and pg_ctl: on PATH, or where
// Debian installs them (/usr/lib/postgresql/VERSION/bin), the newest.
func serverPrograms() (string, error) {
	if p, err := osexec.LookPath("initdb"); err == nil {
		// Its folder holds pg_ctl and pg_basebackup too, unless initdb
		// alone was linked onto PATH.
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p), nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	slices.SortFunc(found, func(a, b string) int { return majorVersion(b) - majorVersion(a) })
	if len(found) == 0 {
		return "", fmt.Errorf("initdb is neither on PATH nor in /usr/lib/postgresql/*/bin (install postgresql)")
	}
	return filepath.Dir(found[0]), nil
}

// majorVersion is VERSION in /usr/lib/postgresql/VERSION/bin/initdb.
func majorVersion(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// asPostgres gives dir to the postgres user and returns the command
// prefix that runs a program as that user.
func asPostgres(tb testing.TB, dir string) []string {
	tb.Helper()
	u, err := user.Lookup("postgres")
	if err != nil {
		tb.Fatalf("running as root, Postgres's programs need the postgres user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		tb.Fatal(err)
	}
	runuser, err := osexec.LookPath("runuser")
	if err != nil {
		tb.Fatalf("running as root, Postgres's programs run as the postgres user through runuser: %v", err)
	}
	return []string{runuser, "-u", "postgres", "--"}
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on now.
func freePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// NewReplica makes a streaming replica of c, which must be started, as
// an operator would (pg_basebackup -R -X stream: a hot standby that
// follows c from its base backup on): a cluster of the test's own on
// another free port, created stopped, stopped and removed when the test
// ends. initdb's defaults allow it: wal_level replica, wal senders, and
// replication over 127.0.0.1 in trust.
func (c *Cluster) NewReplica() *Cluster {
	c.tb.Helper()
	dir, err := os.MkdirTemp("", "nqueens-pgreplica-")
	if err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() { os.RemoveAll(dir) })
	r := &Cluster{tb: c.tb, bin: c.bin, dir: dir, data: filepath.Join(dir, "data"), port: freePort(c.tb)}
	if os.Geteuid() == 0 {
		r.runAs = asPostgres(c.tb, dir)
	}
	r.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", r.port)
	r.run("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", "postgres",
		"-D", r.data, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	c.tb.Cleanup(func() { _ = r.pgCtl("stop", "-m", "immediate") })
	return r
}
