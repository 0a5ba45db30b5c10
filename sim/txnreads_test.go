package sim

import (
	"runtime"
	"testing"
)

// TestRegisterReadsKeepOneVersion runs rw-register transactions on a few
// keys that never retire, so that each key takes thousands of writes: a
// read keeps the version it returns, not every version before it, so the
// store allocates in proportion to the transactions (it allocated with
// the square of a key's writes, 22 GB for 1,000,000 transactions on
// 1,000 keys).
func TestRegisterReadsKeepOneVersion(t *testing.T) {
	o := TxnOptions{Txns: 20_000, Clients: 20, Keys: 5, Ops: 8, MaxLength: 8, ReadRatio: 0.5,
		Registers: true, Isolation: IsoSerializable, Seed: 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h, err := Txns(o)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// About 8 KB per transaction as written; copying every version a read
	// could see took over 1 GB here.
	if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
		t.Errorf("%d transactions allocated %d MB", len(h.Ops), got>>20)
	}
}
