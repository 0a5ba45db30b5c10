package elle_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/sim"
)

// BenchmarkListAppend checks a generated list-append history like
// Jepsen's (keys retiring after 32 appends, 30 clients, crashed and failed
// transactions) for strict serializability.
func BenchmarkListAppend(b *testing.B) {
	h, err := sim.Txns(sim.TxnOptions{Txns: 50_000, Clients: 30, Keys: 10, WritesPerKey: 32, MaxLength: 4,
		Isolation: sim.IsoSerializable, FailRate: 0.01, CrashRate: 0.01, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := elle.Analyze(context.Background(), h, elle.ListAppend, 0)
		if err != nil {
			b.Fatal(err)
		}
		r, err := a.Result(h, elle.StrictSerializable)
		if err != nil || r.Valid.String() != "true" {
			b.Fatalf("%v %v", r.Valid, err)
		}
	}
}
