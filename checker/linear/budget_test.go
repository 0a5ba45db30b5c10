package linear

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

func TestMaxMemory(t *testing.T) {
	h := hardHistory(t, 40)
	// A generous deadline that only guards against a hang: the memory
	// limit must stop the search long before.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{NoZones: true, MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "memo exceeded 1 MiB after ") {
		t.Fatalf("verdict %v, reason %q", res.Valid, res.Reason)
	}
	if res.Stats.MemoSize == 0 {
		t.Errorf("no memo counted: %+v", res.Stats)
	}
	// Without a limit the same search runs on (until the deadline here).
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err = Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{NoZones: true, MaxMemory: -1})
	if err != nil || res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "timed out") {
		t.Fatalf("no limit: %v %v %q", err, res.Valid, res.Reason)
	}
}
