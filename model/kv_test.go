package model

import (
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func str(s string) history.Value { return history.StringValue(s) }

func TestKVStep(t *testing.T) {
	empty := Options{Init: str("")}
	runSteps(t, NewKV, []stepCase{
		{name: "absent by default", ops: []*history.Op{hop("get", history.NilValue)}, legal: true, state: "nil"},
		{name: "initial empty string", opts: empty, ops: []*history.Op{hop("read", str(""))}, legal: true, state: `""`},
		{name: "put then get", ops: []*history.Op{hop("put", str("a")), hop("get", str("a"))}, legal: true, state: "a"},
		{name: "append concatenates", opts: empty, ops: []*history.Op{hop("append", str("x 0 0 y")), hop("append", str("x 0 1 y")), hop("get", str("x 0 0 yx 0 1 y"))},
			legal: true, state: `"x 0 0 yx 0 1 y"`},
		{name: "append to nil appends to empty", ops: []*history.Op{hop("append", str("ab")), hop("get", str("ab"))}, legal: true, state: "ab"},
		{name: "append order matters", opts: empty, ops: []*history.Op{hop("append", str("a")), hop("append", str("b")), hop("get", str("ba"))},
			why: "read ba but the key holds ab"},
		{name: "append to a number", ops: []*history.Op{hop("put", v1), hop("append", str("a"))}, why: "append a to 1, which is not a string"},
		{name: "cas", ops: []*history.Op{hop("put", str("a")), hop("cas", cas(str("a"), str("b")))}, legal: true, state: "b"},
		{name: "cas from another value", ops: []*history.Op{hop("put", str("a")), hop("cas", cas(str("b"), str("c")))}, why: "cas from b but the key holds a"},
		{name: "unknown get", opts: empty, ops: []*history.Op{hop("get", history.NilValue, history.Info)}, legal: true, state: `""`},
		{name: "unknown append takes effect", opts: empty, ops: []*history.Op{hop("append", str("a"), history.Info), hop("get", str("a"))}, legal: true, state: "a"},
		{name: "nil read is any", opts: Options{Init: str(""), NilRead: NilIsAny}, ops: []*history.Op{hop("put", str("a")), hop("get", history.NilValue)}, legal: true, state: "a"},
		{name: "nil read is a value", opts: empty, ops: []*history.Op{hop("get", history.NilValue)}, why: `read nil but the key holds ""`},
	})
}

func TestKVCompileErrors(t *testing.T) {
	tests := []struct {
		op   *history.Op
		want string
	}{
		{hop("incr", v1), `model kv has no operation "incr" (it knows [read write append cas])`},
		{hop("append", v1), "append needs a string value, got 1"},
		{hop("append", history.NilValue), "append needs a string value, got nil"},
		{hop("cas", str("a")), "cas needs a value [from to], got a"},
		{hop("put", history.Value{}), "write needs a value"},
	}
	for _, tt := range tests {
		_, err := NewKV(Options{}).Compile(tt.op, NewTable())
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.op.F, err, tt.want)
		}
	}
	if !NewKV(Options{}).Info().Keyed {
		t.Error("kv is not keyed")
	}
}

func TestKVKeep(t *testing.T) {
	info := history.Info
	tests := []struct {
		name string
		ops  []*history.Op
		keep []bool
	}{
		{
			name: "register rule without appends",
			ops:  []*history.Op{hop("put", str("a"), info), hop("put", str("b"), info), hop("get", str("b")), hop("get", str("b"), info)},
			keep: []bool{false, true, true, false},
		},
		{
			// An append may build on the unobserved put: keep every write.
			name: "appends keep writes",
			ops:  []*history.Op{hop("put", str("a"), info), hop("append", str("b"), info), hop("get", str("ab")), hop("get", str("b"), info)},
			keep: []bool{true, true, true, false},
		},
		{
			// Only completed reads observe: "x" is in none of them (the
			// read of unknown outcome does not count), "y" is.
			name: "appends of unknown outcome kept when observed",
			ops: []*history.Op{hop("put", str("a")), hop("append", str("x"), info), hop("append", str("y"), info),
				hop("get", str("ay")), hop("get", str("axz"), info), hop("append", str(""), info)},
			keep: []bool{true, false, true, true, false, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewKV(Options{})
			tab := NewTable()
			ops := make([]Op, len(tt.ops))
			for i, o := range tt.ops {
				ops[i] = compileOp(t, m, o, tab)
			}
			got := m.(Pruner).Keep(ops)
			for i := range got {
				if got[i] != tt.keep[i] {
					t.Fatalf("keep %v, want %v", got, tt.keep)
				}
			}
		})
	}
}

// TestKVConcurrent steps one model from several goroutines, as a checker
// searching keys in parallel does; run with -race to check the value table.
func TestKVConcurrent(t *testing.T) {
	m := NewKV(Options{})
	tab := NewTable()
	suffixes := []Op{compileOp(t, m, hop("append", str("a")), tab), compileOp(t, m, hop("append", str("b")), tab)}
	init := m.Init(tab)
	var wg sync.WaitGroup
	results := make([]string, 4)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := init
			for i := 0; i < 200; i++ {
				var ok bool
				if s, ok = m.Step(s, &suffixes[(i+g)%2]); !ok {
					t.Errorf("append illegal")
					return
				}
			}
			results[g] = m.Describe(s, tab)
		}()
	}
	wg.Wait()
	for g := range results {
		if len(results[g]) != 200 {
			t.Errorf("goroutine %d ended with %d bytes", g, len(results[g]))
		}
	}
	if results[0] != results[2] || results[0] == results[1] {
		t.Errorf("results differ where they should not: %q %q", results[0][:4], results[1][:4])
	}
}

// TestKVReserveKeepsIDs checks that Reserve is only a hint: a model told
// to expect fewer, as many or more values than it gets compiles every
// operation, and steps every state, to the same ids as one told nothing,
// strings and other values mixed, appends built past the reservation
// included.
func TestKVReserveKeepsIDs(t *testing.T) {
	var ops []*history.Op
	for i := range 300 {
		switch i % 4 {
		case 0:
			ops = append(ops, hop("put", str(strconv.Itoa(i%70))))
		case 1:
			ops = append(ops, hop("append", str("x"+strconv.Itoa(i%11))))
		case 2:
			ops = append(ops, hop("get", history.IntValue(int64(i%9))))
		default:
			ops = append(ops, hop("get", str(strconv.Itoa(i%50)+"x1")))
		}
	}
	run := func(reserve int) []int64 {
		m := NewKV(Options{})
		if reserve >= 0 {
			m.(Reserver).Reserve(reserve)
		}
		tab := NewTable()
		var ids []int64
		s := m.Init(tab)
		for _, o := range ops {
			c := compileOp(t, m, o, tab)
			ids = append(ids, c.A)
			if c.Kind == kvAppend || c.Kind == kvWrite {
				next, ok := m.Step(s, &c)
				if !ok {
					t.Fatalf("step %s refused", o.Label())
				}
				s = next
				ids = append(ids, s)
			}
		}
		return ids
	}
	want := run(-1)
	for _, n := range []int{0, 10, len(ops), 10 * len(ops)} {
		if got := run(n); !slices.Equal(got, want) {
			t.Errorf("Reserve(%d): ids %v, want %v", n, got, want)
		}
	}
}
