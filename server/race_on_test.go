//go:build race

package server_test

// raceDetector is set when the tests run under the race detector, whose
// shadow memory multiplies the process's resident memory (and keeps it).
const raceDetector = true

// raceSlowdown is how much slower the race detector makes the server: the
// bounds on time that an honest client is held to are this many times
// longer under it (it runs in CI besides the plain build, which holds them
// as they are).
const raceSlowdown = 5
