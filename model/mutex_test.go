package model

import (
	"testing"

	"github.com/histcheck/histcheck/history"
)

func TestMutexStep(t *testing.T) {
	none := history.Value{}
	runSteps(t, NewMutex, []stepCase{
		{name: "starts free", ops: []*history.Op{hop("acquire", none)}, legal: true, state: "held"},
		{name: "release when free", ops: []*history.Op{hop("release", none)}, why: "release but the lock is free"},
		{name: "double acquire", ops: []*history.Op{hop("lock", none), hop("acquire", none)}, why: "acquire but the lock is already held"},
		{name: "acquire release acquire", ops: []*history.Op{hop("acquire", none), hop("unlock", none), hop("acquire", history.IntValue(34))}, legal: true, state: "held"},
		{name: "no owner", ops: []*history.Op{hop("acquire", none), func() *history.Op { o := hop("release", none); o.Client = "B"; return o }()}, legal: true, state: "free"},
		// Unknown outcome does not relax the rules; the checker may leave
		// such an operation out instead.
		{name: "unknown acquire", ops: []*history.Op{hop("acquire", none), hop("acquire", none, history.Info)}, why: "acquire but the lock is already held"},
	})
}

func TestMutexCompileErrors(t *testing.T) {
	_, err := NewMutex(Options{}).Compile(hop("read", history.IntValue(1)), NewTable())
	if want := `model mutex has no operation "read" (it knows [acquire release])`; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}
