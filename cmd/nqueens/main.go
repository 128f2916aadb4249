// Command nqueens is the one binary of the N-Queens service. It counts and
// lists solutions from the command line, migrates the database schema,
// serves the GraphQL API, and computes boards into the database in the
// background (worker, precompute).
//
// Exit codes: 0 success, 1 failure while running, 2 bad usage,
// 3 undecided (complete ran out of time), 130 interrupted (Ctrl-C).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitUndecided   = 3
	exitInterrupted = 130
)

// command is one subcommand: its synopsis for the usage text, the
// function that runs it and its settings table with their defaults (for
// docs/SETTINGS.md; run makes its own). A command is a file of its own
// (count.go, serve.go, …) and one line in commands.
type command struct {
	name     string
	synopsis string // arguments after the command name
	summary  string
	run      func(ctx context.Context, args []string, c console) error
	settings func() []setting
}

// console is what a command runs in: the environment variables its
// settings' twins are read from, and its standard streams. main gives it
// the process's own; the tests give their own and run the commands
// in-process.
type console struct {
	lookupEnv      func(key string) (string, bool)
	stdin          io.Reader
	stdout, stderr io.Writer
}

// commands lists what exists, in the order usage shows them.
var commands = []command{
	{"count", countSynopsis, "count the solutions of N (1.." + strconv.Itoa(maxSearchN) + ") by symmetry class", runCount,
		func() []setting { return newCountOptions().settings() }},
	{"solve", solveSynopsis, "print one solution of N, or list them in lexicographic order", runSolve,
		func() []setting { return newSolveOptions().settings() }},
	{"complete", completeSynopsis, "complete a board with pinned queens and empty squares, or prove it impossible", runComplete,
		func() []setting { return newCompleteOptions().settings() }},
	{"export", exportSynopsis, "write the solutions of N (or those --where keeps) as CSV, NDJSON, placements or Parquet, from the database or the solver", runExport,
		func() []setting { return newExportOptions().settings() }},
	{"validate", validateSynopsis, "say whether a board, in any form solve prints, is a solution, and its conflicts", runValidate,
		func() []setting { return newValidateOptions().settings() }},
	{"migrate", migrateSynopsis, "apply, revert or show the database schema migrations", runMigrate,
		func() []setting { return newMigrateOptions().settings() }},
	{"serve", serveSynopsis, "serve the GraphQL API at /graphql, with the playground at /playground", runServe,
		func() []setting { return newServeOptions().settings() }},
	{"worker", workerSynopsis, "work the precompute jobs of the database until stopped", runWorker,
		func() []setting { return newWorkerOptions().settings() }},
	{"precompute", precomputeSynopsis, "ask for boards to be computed and kept; --wait works them and shows the progress", runPrecompute,
		func() []setting { return newPrecomputeOptions().settings() }},
	{"healthcheck", healthcheckSynopsis, "exit 0 if the server at --addr says it is ready (/readyz), 1 otherwise", runHealthcheck,
		func() []setting { return newHealthcheckOptions().settings() }},
	{"version", versionSynopsis, "print the version, the commit and the Go version of this build", runVersion,
		func() []setting { return newVersionOptions().settings() }},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], console{lookupEnv: os.LookupEnv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// run dispatches args to a command and turns its error into a message on
// stderr and an exit code; ctx ends on SIGINT and SIGTERM.
func run(ctx context.Context, args []string, c console) int {
	if len(args) == 0 {
		usage(c.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && name == "help" {
			// "nqueens help count" is "nqueens count --help".
			return run(ctx, []string{args[1], "--help"}, c)
		}
		usage(c.stdout)
		return exitOK
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == name {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(c.stderr, "nqueens: unknown command %q; commands are %s (run 'nqueens help')\n", name, commandNames())
		return exitUsage
	}
	err := cmd.run(ctx, args[1:], c)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(c.stderr, "nqueens %s: %s; see 'nqueens %s --help'\n", name, ue.msg, name)
		return exitUsage
	case errors.Is(err, errUndecided):
		fmt.Fprintf(c.stderr, "nqueens %s: %v\n", name, err)
		return exitUndecided
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(c.stderr, "nqueens %s: interrupted\n", name)
		return exitInterrupted
	default:
		fmt.Fprintf(c.stderr, "nqueens %s: %v\n", name, err)
		return exitFailure
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "nqueens: N-Queens solutions, counted and listed")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  nqueens %s %s\n", c.name, c.synopsis)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'nqueens COMMAND --help' for its flags. Flags may come before or after N.")
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// usageError is bad input from the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// errUndecided is the verdict of a command that ran out of time before it
// could answer yes or no: exit code 3.
var errUndecided = errors.New("undecided")

// errHelp means the command printed its help; the run succeeded.
var errHelp = errors.New("help printed")

// parseN reads the one positional argument, the board size: a whole
// number from 1 to maxN, where why says what sets that limit.
func parseN(pos []string, maxN int, why string) (int, error) {
	switch len(pos) {
	case 0:
		return 0, usagef("missing N, the board size (a whole number from 1 to %d)", maxN)
	case 1:
	default:
		return 0, usagef("want exactly one N, got %d arguments: %s", len(pos), strings.Join(pos, " "))
	}
	n, err := strconv.Atoi(pos[0])
	if err != nil || n < 1 || n > maxN {
		return 0, usagef("N must be a whole number from 1 to %d %s, got %q", maxN, why, pos[0])
	}
	return n, nil
}
