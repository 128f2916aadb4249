package progress

import "fmt"

// Plural writes n things: "1 chunk", "0 chunks", "14200 solutions". The
// nouns the commands count take an s in the plural.
func Plural[T ~int | ~int64 | ~uint64](n T, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Fraction writes done of total things, the noun agreeing with total:
// "0/1 board", "3/11 boards".
func Fraction[T ~int | ~int64 | ~uint64](done, total T, noun string) string {
	return fmt.Sprintf("%d/%s", done, Plural(total, noun))
}
