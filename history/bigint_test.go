package history_test

import (
	"math/big"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestBigIntValueAgreesWithBigInt holds the 64-bit shortcut of BigIntValue
// to math/big's reading: the same strings accepted, the same canonical
// digits.
func TestBigIntValueAgreesWithBigInt(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "+0", "7", "+7", "-7", "007", "-007", "+-1", "--1", "", "-", "+",
		"1_000", "0x10", "1e3", "1.0", " 1", "1 ", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890", "00000000000000000000000000001",
	} {
		want, wantOK := new(big.Int).SetString(s, 10)
		got, ok := history.BigIntValue(s)
		if ok != wantOK {
			t.Errorf("BigIntValue(%q) ok = %v, math/big says %v", s, ok, wantOK)
			continue
		}
		if ok && (got.Kind() != history.Int || got.Text() != want.String()) {
			t.Errorf("BigIntValue(%q) = %s %q, want int %q", s, got.Kind(), got.Text(), want.String())
		}
	}
}
