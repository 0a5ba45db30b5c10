package online

import (
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// step is one event for a sweep: an invocation of an operation whose
// outcome is known, or the return of the operation invoked at step at.
type step struct {
	f      string
	v      int64
	status history.Type
	ret    int // for a return: the step that invoked it; -1 for an invocation
}

func inv(f string, v int64) step                  { return step{f: f, v: v, status: history.OK, ret: -1} }
func crash(f string, v int64) step                { return step{f: f, v: v, status: history.Info, ret: -1} }
func ret(at int) step                             { return step{ret: at} }
func register(o model.Options) model.Model[int64] { return model.NewRegister(o) }

// TestSweep runs a register's sweep over events and expects the status
// after the last.
func TestSweep(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
		want  Status
	}{
		{"read of the value written", []step{inv("write", 1), ret(0), inv("read", 1), ret(2)}, Open},
		{"stale read", []step{inv("write", 1), ret(0), inv("write", 2), ret(2), inv("read", 1), ret(4)}, Violated},
		{"read during the write that overwrites", []step{inv("write", 1), ret(0), inv("write", 2), inv("read", 1), ret(3), ret(2)}, Open},
		{"crashed write read later", []step{crash("write", 3), inv("write", 1), ret(1), inv("read", 3), ret(3)}, Open},
		{"crashed write read twice around another write", []step{crash("write", 3), inv("read", 3), ret(1), inv("write", 1), ret(3), inv("read", 3), ret(5)}, Violated},
		{"read of a value never written", []step{inv("read", 7), ret(0)}, Violated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := NewSweep(register, model.Options{Init: history.IntValue(0)}, 0)
			slots := map[int]int{}
			st := Open
			for i, s := range c.steps {
				if s.ret >= 0 {
					st = w.Return(slots[s.ret])
					continue
				}
				op := history.Op{F: s.f, Value: history.IntValue(s.v), Status: s.status, Call: int64(i)}
				slot, got, err := w.Invoke(&op)
				if err != nil || got != Open {
					t.Fatalf("step %d: %v %v", i, got, err)
				}
				slots[i] = slot
			}
			if st != c.want {
				t.Errorf("status %d, want %d", st, c.want)
			}
		})
	}
}

// TestSweepBounded: crashed operations that nothing uses stay open, and
// past MaxOpen the sweep gives up with the reason rather than grow.
func TestSweepBounded(t *testing.T) {
	w := NewSweep(register, model.Options{}, 0)
	for i := 0; i <= MaxOpen; i++ {
		op := history.Op{F: "write", Value: history.IntValue(int64(i)), Status: history.Info, Call: int64(i)}
		_, st, err := w.Invoke(&op)
		if err != nil {
			t.Fatal(err)
		}
		if i < MaxOpen && st != Open || i == MaxOpen && st != Exceeded {
			t.Fatalf("operation %d: status %d", i, st)
		}
	}
	if !strings.Contains(w.Reason(), "cannot be kept small") {
		t.Errorf("reason %q", w.Reason())
	}
}
