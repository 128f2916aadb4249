package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The floor is what the transport alone costs: a bare net/http server, in a
// process of its own as the real one is, that answers every request with
// the bytes and headers the real server gave for one page. Its requests per
// second on the same machine, in the same sitting, is the most any server
// could reach here, so the ratio of the two means the same on any machine.

// floorHeaders are the answer's headers the floor repeats: those a client
// or a cache reads.
var floorHeaders = []string{"Content-Type", "Content-Encoding", "Cache-Control", "ETag", "Vary"}

// sample is one answer of the real server: what the floor repeats.
type sample struct {
	header http.Header
	body   []byte
}

// takeSample sends the first target once and keeps its answer.
func takeSample(ctx context.Context, t vegeta.Target) (sample, error) {
	req, err := t.Request()
	if err != nil {
		return sample{}, err
	}
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return sample{}, fmt.Errorf("taking the floor's sample: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return sample{}, fmt.Errorf("taking the floor's sample: %w", err)
	}
	if msg := check(&vegeta.Result{Code: uint16(resp.StatusCode), Body: body, Headers: resp.Header}); msg != "" {
		return sample{}, fmt.Errorf("taking the floor's sample: %s", msg)
	}
	s := sample{header: http.Header{}, body: body}
	for _, h := range floorHeaders {
		if v := resp.Header.Get(h); v != "" {
			s.header.Set(h, v)
		}
	}
	return s, nil
}

// floorProcess is a running `nqueens-load floor` child.
type floorProcess struct {
	cmd *exec.Cmd
	url string
}

// startFloor starts this executable's floor command serving s on a free
// local port, and returns once it listens.
func startFloor(ctx context.Context, s sample) (*floorProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "nqueens-floor-*.body")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name()) // the child has read it once it listens
	if _, err := f.Write(s.body); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	args := []string{"floor", "--listen", "127.0.0.1:0", "--body", f.Name()}
	for _, h := range floorHeaders {
		if v := s.header.Get(h); v != "" {
			args = append(args, "--header", h+": "+v)
		}
	}
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the floor did not start: %q %v", line, err)
	}
	return &floorProcess{cmd: cmd, url: "http://" + addr + "/graphql"}, nil
}

// stop ends the floor process.
func (p *floorProcess) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// onFloor returns the targets aimed at the floor instead of the server.
func onFloor(targets []vegeta.Target, url string) []vegeta.Target {
	out := slices.Clone(targets)
	for i := range out {
		out[i].URL = url
	}
	return out
}

// headerFlags collects repeated --header "Name: value" flags.
type headerFlags http.Header

func (h headerFlags) String() string { return "" }

func (h headerFlags) Set(v string) error {
	name, value, ok := strings.Cut(v, ":")
	if !ok {
		return errors.New(`a header is "Name: value"`)
	}
	http.Header(h).Add(strings.TrimSpace(name), strings.TrimSpace(value))
	return nil
}

// runFloor serves one answer's bytes to every request until interrupted:
// the hidden command `nqueens-load floor` that --floor starts. It prints
// "listening ADDR" once it accepts connections.
func runFloor(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nqueens-load floor", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "address to listen on")
	bodyPath := fs.String("body", "", "file holding the answer's bytes")
	header := headerFlags{}
	fs.Var(header, "header", `a header of the answer, "Name: value" (repeatable)`)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	if *bodyPath == "" || fs.NArg() > 0 {
		return usageError("usage: nqueens-load floor --body FILE [--listen ADDR] [--header 'Name: value' …]")
	}
	body, err := os.ReadFile(*bodyPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request is read whole, as any server must before it
		// answers on the same connection.
		_, _ = io.Copy(io.Discard, r.Body)
		for name, values := range header {
			w.Header()[name] = values
		}
		_, _ = w.Write(body)
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { _ = srv.Close() })
	defer stop()
	fmt.Fprintf(stdout, "listening %s\n", ln.Addr())
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// comparison is the server's figures beside the floor's, round by round.
type comparison struct{ server, floor []*result }

func (c comparison) print(w io.Writer) {
	var rates, p99s []float64
	var parts []string
	for i := range c.server {
		s, f := c.server[i], c.floor[i]
		rate := s.rate() / f.rate()
		rates = append(rates, rate)
		p99s = append(p99s, float64(s.quantile(0.99))/float64(max(f.quantile(0.99), 1)))
		parts = append(parts, fmt.Sprintf("%.2f", rate))
	}
	fmt.Fprintf(w, "ratio    server/floor requests/s: median %.2f (rounds %s); p99 server/floor: median %.1f×\n",
		median(rates), strings.Join(parts, ", "), median(p99s))
}

// median is the middle of xs (the mean of the two middle ones for an
// even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
