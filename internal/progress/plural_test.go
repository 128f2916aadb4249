package progress

import "testing"

func TestPlural(t *testing.T) {
	t.Parallel()
	for got, want := range map[string]string{
		Plural(1, "chunk"):                "1 chunk",
		Plural(0, "chunk"):                "0 chunks",
		Plural(uint64(14200), "solution"): "14200 solutions",
		Fraction(0, 1, "board"):           "0/1 board",
		Fraction(1, 1, "board"):           "1/1 board",
		Fraction(3, 11, "board"):          "3/11 boards",
	} {
		if got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
