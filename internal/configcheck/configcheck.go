// Package configcheck is how the constructors of the service's parts
// (server.New, graph.NewResolver, precompute.New, the stores' Open) refuse
// a configuration: the first field whose value they cannot take, named, with
// what is allowed. A value is never replaced by a default behind the
// caller's back: each package's DefaultConfig (or DefaultOptions) is where
// the defaults are, and a zero the constructor takes means zero. Commands
// turn the field's name into the flag that set it.
package configcheck

import (
	"errors"
	"fmt"
	"time"
)

// Error is a field whose value a constructor refuses.
type Error struct {
	// Field is the field's name, with the names of the structs it is in
	// ("Graph.MaxPageSize" in a server.Config).
	Field string
	// Problem says what is wrong and what is allowed: "must be at least 1,
	// got 0".
	Problem string
}

func (e *Error) Error() string { return e.Field + " " + e.Problem }

// Errorf returns the error of field; format says what is wrong with it.
func Errorf(field, format string, args ...any) error {
	return &Error{Field: field, Problem: fmt.Sprintf(format, args...)}
}

// In returns err as the error of a field of struct field parent
// ("Graph"), and err unchanged when it is not an *Error.
func In(parent string, err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	return &Error{Field: parent + "." + e.Field, Problem: e.Problem}
}

// AtLeast checks that an integer field is at least least.
func AtLeast[T ~int | ~int32 | ~int64](field string, v, least T) error {
	if v < least {
		return Errorf(field, "must be at least %d, got %d", least, v)
	}
	return nil
}

// Between checks that an integer field is from lo to hi; what says what
// the bounds mean ("0: never count on the spot").
func Between[T ~int | ~int32 | ~int64](field string, v, lo, hi T, what string) error {
	if v < lo || v > hi {
		if what != "" {
			return Errorf(field, "must be from %d to %d (%s), got %d", lo, hi, what, v)
		}
		return Errorf(field, "must be from %d to %d, got %d", lo, hi, v)
	}
	return nil
}

// Positive checks that a duration field is more than zero: a bound that
// must be there.
func Positive(field string, d time.Duration) error {
	if d <= 0 {
		return Errorf(field, "must be positive, got %s", d)
	}
	return nil
}

// NotNegative checks that a duration field is zero or more.
func NotNegative(field string, d time.Duration) error {
	if d < 0 {
		return Errorf(field, "must not be negative, got %s", d)
	}
	return nil
}

// Logger checks a logger field: nil is refused, since a part that logs
// nothing would hide its errors; slog.New(slog.DiscardHandler) says so.
func Logger(field string, isNil bool) error {
	if isNil {
		return Errorf(field, "is nil; give a logger (slog.New(slog.DiscardHandler) for none)")
	}
	return nil
}
