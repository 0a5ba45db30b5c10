package elle_test

import (
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
)

// TestFracturedReads checks monotonic atomic view's own anomaly: a
// transaction that observed one of T's writes and later read another key
// T wrote without T's write saw T in part (Bailis et al.). Read committed
// allows it; monotonic atomic view, and every level that implies it, do
// not.
func TestFracturedReads(t *testing.T) {
	mav := elle.MonotonicAtomicView
	for _, c := range []expect{
		{name: "sees x, misses y", h: conc("ax1ay1", "rx1ry"),
			anomalies: []string{"G-single-item", "fractured-read"}, holds: []string{rc, ru}, fails: []string{mav, rr, si, ser}},
		{name: "sees both", h: conc("ax1ay1", "rx1ry1"), holds: []string{mav, ser}},
		{name: "sees neither", h: conc("ax1ay1", "rxry"), holds: []string{mav, ser}},
		// Bailis's definition constrains the reads after the one that
		// observed: missing y first, then seeing x, is no fractured read
		// (still a G-single-item).
		{name: "misses y, then sees x", h: conc("ax1ay1", "ryrx1"),
			anomalies: []string{"G-single-item"}, holds: []string{mav, rc}, fails: []string{rr, si}},
		{name: "sees x, misses y behind another append", h: conc("ax1ay1", "ay2", "rx1ry2"),
			anomalies: []string{"G-single-item", "fractured-read"}, holds: []string{rc}, fails: []string{mav, si}},
		{name: "one key only is no fractured read", h: conc("ax1", "ay1", "rx1ry"), holds: []string{mav, ser}},
		// A read after the reader's own append to the key is not read
		// from others: only the G1c the two appends to y close.
		{name: "its own writes are not read from others", h: conc("ax1ay1", "rx1ay2ry2"),
			anomalies: []string{"G1c"}, fails: []string{rc}},
	} {
		t.Run(c.name, func(t *testing.T) { check(t, c) })
	}
	for _, c := range []expect{
		{name: "rw-register: sees x, then the initial y", h: concRegs("wx1wy1", "rx1ry"), registers: true,
			anomalies: []string{"G-single-item", "fractured-read"}, holds: []string{rc}, fails: []string{mav, si}},
		{name: "rw-register: sees both", h: concRegs("wx1wy1", "rx1ry1"), registers: true, holds: []string{mav, ser}},
		// Without an assumption, y = 2 and y = 1 are unordered.
		{name: "rw-register: another version, order unknown", h: concRegs("wx1wy1", "wy2", "rx1ry2"), registers: true, holds: []string{mav}},
	} {
		t.Run(c.name, func(t *testing.T) { check(t, c) })
	}
}
