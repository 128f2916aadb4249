package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves Go's profiles (net/http/pprof) on addr until ctx ends:
// the opt-in debug listener of --debug-addr. It is never the public
// port: a CPU profile costs the server what it measures, and the heap
// profile shows what requests hold, so it belongs on an address only
// operators reach (127.0.0.1 by default advice). It returns once it
// listens, or the error of listening.
func serveDebug(ctx context.Context, addr string, logger *slog.Logger) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // the named profiles: heap, goroutine, allocs, block, mutex…
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	// A CPU profile or a trace takes as long as asked (?seconds=), so no
	// write timeout; headers still have to come in time.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.Error("debug listener", "error", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = hs.Close() })
	logger.Info("debug listener (pprof)", "addr", ln.Addr().String())
	return ln.Addr(), nil
}
