//go:build race

package server_test

// raceDetector is set when the tests run under the race detector, whose
// shadow memory multiplies the process's resident memory (and keeps it).
const raceDetector = true
