package apitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// EventStream is one operation over Server-Sent Events, as the graphql-sse
// protocol's distinct connections mode runs it: a POST with Accept:
// text/event-stream, whose answer is a stream of "next" events, then
// "complete".
type EventStream struct {
	Resp *http.Response
	r    *bufio.Reader
}

// Event is one block of an event stream: an event (Name and Data), or
// comments only (Comments, each without its leading colon).
type Event struct {
	Name, Data string
	Comments   []string
}

// OpenStream posts req asking for an event stream and returns the answer,
// whatever its status; the caller reads it (ReadEvent, Next) and closes
// it (Close), or reads the refusal's body.
func (b *Bundle) OpenStream(ctx context.Context, req Request) (*EventStream, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, b.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	resp, err := b.HTTP.Do(hreq)
	if err != nil {
		return nil, err
	}
	return &EventStream{Resp: resp, r: bufio.NewReader(resp.Body)}, nil
}

// Stream is OpenStream that fails the test unless the stream starts
// (200, text/event-stream). The stream closes when the test ends.
func (b *Bundle) Stream(t testing.TB, ctx context.Context, req Request) *EventStream {
	t.Helper()
	s, err := b.OpenStream(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if s.Resp.StatusCode != http.StatusOK || s.Resp.Header.Get("Content-Type") != "text/event-stream" {
		raw, _ := io.ReadAll(s.Resp.Body)
		t.Fatalf("event stream: %d %s: %s", s.Resp.StatusCode, s.Resp.Header.Get("Content-Type"), raw)
	}
	return s
}

// ReadEvent reads the next block of the stream, up to its blank line; at
// the end of the stream, io.EOF (or the error that cut it).
func (s *EventStream) ReadEvent() (Event, error) {
	var e Event
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			if err == io.EOF && line != "" {
				err = io.ErrUnexpectedEOF
			}
			return e, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if e.Name != "" || e.Data != "" || len(e.Comments) > 0 {
				return e, nil
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "":
			e.Comments = append(e.Comments, value)
		case "event":
			e.Name = value
		case "data":
			if e.Data != "" {
				e.Data += "\n"
			}
			e.Data += value
		}
	}
}

// Next decodes the data of the next "next" event into out, skipping
// comments; false when the stream completed instead. An error in the
// event, another event or the end of the stream fails the test.
func (s *EventStream) Next(t testing.TB, out any) bool {
	t.Helper()
	for {
		e, err := s.ReadEvent()
		if err != nil {
			t.Fatalf("reading the event stream: %v", err)
		}
		switch e.Name {
		case "":
			continue // comments
		case "complete":
			return false
		case "next":
		default:
			t.Fatalf("unexpected event %+v", e)
		}
		var p struct {
			Data   json.RawMessage `json:"data"`
			Errors []Error         `json:"errors"`
		}
		if err := json.Unmarshal([]byte(e.Data), &p); err != nil || len(p.Errors) > 0 {
			t.Fatalf("next event %s: %v", e.Data, err)
		}
		if err := json.Unmarshal(p.Data, out); err != nil {
			t.Fatalf("decoding %s: %v", p.Data, err)
		}
		return true
	}
}

// Close closes the stream, as a client that goes away does.
func (s *EventStream) Close() { s.Resp.Body.Close() }
