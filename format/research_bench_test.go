package format

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// researchHistory writes n transactions of 8 operations, half reads, in
// 20 sessions over 1,000 keys with unique writes, in the text format.
func researchHistory(n int) []byte {
	rng := rand.New(rand.NewSource(1))
	var buf bytes.Buffer
	last := make([]int, 1000)
	for t := range n {
		s := t % 20
		for range 8 {
			k := rng.Intn(1000)
			if rng.Intn(2) == 0 {
				fmt.Fprintf(&buf, "r(%d,%d,%d,%d)\n", k, last[k], s, t)
				continue
			}
			last[k] = t + 1
			fmt.Fprintf(&buf, "w(%d,%d,%d,%d)\n", k, t+1, s, t)
		}
	}
	return buf.Bytes()
}

// BenchmarkReadResearch reads 50,000 transactions (400,000 operations)
// in each research format, and in EDN for comparison.
func BenchmarkReadResearch(b *testing.B) {
	src := researchHistory(50_000)
	h, err := Read("h", bytes.NewReader(src), Plume)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []string{Plume, AWDITTest, DBCop, DBCopHist, EDN} {
		var enc bytes.Buffer
		if err := Write(&enc, h, f); err != nil {
			b.Fatal(err)
		}
		b.Run(f, func(b *testing.B) {
			b.SetBytes(int64(enc.Len()))
			b.ReportAllocs()
			for range b.N {
				if _, err := Read("h", bytes.NewReader(enc.Bytes()), f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
