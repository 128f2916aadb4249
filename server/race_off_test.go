//go:build !race

package server_test

// raceDetector is set when the tests run under the race detector.
const raceDetector = false

// raceSlowdown is 1 without the race detector (race_on_test.go).
const raceSlowdown = 1
