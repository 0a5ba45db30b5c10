package jepsen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/jepsen"
)

// BenchmarkSetFull checks a history of n adds, each followed by a read of
// every element added so far.
func BenchmarkSetFull(b *testing.B) {
	const n = 1000
	var events, added []string
	for i := 0; i < n; i++ {
		added = append(added, fmt.Sprint(i))
		events = append(events, fmt.Sprintf("0 invoke add %d", i), fmt.Sprintf("0 ok add %d", i),
			"1 invoke read nil", "1 ok read ["+strings.Join(added, " ")+"]")
	}
	h := edn(b, events...)
	b.ResetTimer()
	for range b.N {
		run(b, jepsen.SetFull, h, nil)
	}
}
