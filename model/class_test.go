package model

import (
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestClassOf pins which names each model classes as reads and writes:
// the causal, session and sequential checkers take shortcuts from these
// classes, so a change here changes what they accept.
func TestClassOf(t *testing.T) {
	reads := []string{"read", "r", "get"}
	writes := []string{"write", "w", "put"}
	cas := []string{"cas", "compare-and-set"}
	cases := []struct {
		info                Info
		reads, writes, cass []string
	}{
		{NewRegister(Options{}).Info(), reads, writes, nil},
		{NewCASRegister(Options{}).Info(), reads, writes, cas},
		{NewKV(Options{}).Info(), reads, writes, cas},
		{NewFencedRegister(Options{}).Info(), reads, writes, nil},
		{NewCounter(Options{}).Info(), []string{"read", "r"}, nil, nil},
		{NewSet(Options{}).Info(), []string{"read", "r"}, nil, nil},
		{NewMutex(Options{}).Info(), nil, nil, nil},
		{NewLock(Options{}).Info(), nil, nil, nil},
		{NewLease(Options{}).Info(), nil, nil, nil},
		{NewFIFOQueue(Options{}).Info(), nil, nil, nil},
		{NewUnorderedQueue(Options{}).Info(), nil, nil, nil},
	}
	for _, tc := range cases {
		want := map[string]OpClass{}
		for _, f := range tc.reads {
			want[f] = ReadOp
		}
		for _, f := range tc.writes {
			want[f] = WriteOp
		}
		for _, f := range tc.cass {
			want[f] = CASOp
		}
		names := []string{"nosuchop", ""}
		for _, o := range tc.info.Ops {
			names = append(names, o.Names...)
		}
		for _, f := range names {
			if got := tc.info.ClassOf(f); got != want[f] {
				t.Errorf("%s: ClassOf(%q) = %d, want %d", tc.info.Name, f, got, want[f])
			}
		}
		for f := range want {
			if got := tc.info.ClassOf(f); got != want[f] {
				t.Errorf("%s: ClassOf(%q) = %d, want %d (not an accepted name?)", tc.info.Name, f, got, want[f])
			}
		}
	}
}

// TestClassOfAgreesWithCompiled checks that, for the models that classify
// compiled operations too, a name's class is the class of what it compiles
// to: one fact, seen from the history and from the model. A cas is the
// exception by definition: compiled, it is OtherOp.
func TestClassOfAgreesWithCompiled(t *testing.T) {
	for _, m := range []Model[int64]{NewRegister(Options{}), NewCASRegister(Options{}), NewKV(Options{})} {
		info := m.Info()
		rw := m.(ReadWriteRegister)
		for _, o := range info.Ops {
			for _, f := range o.Names {
				v := history.IntValue(1)
				if o.Class == OtherOp || o.Class == CASOp {
					v = history.ListValue(history.IntValue(1), history.IntValue(2))
					if f == "append" {
						v = history.StringValue("x")
					}
				}
				op := &history.Op{Client: "A", F: f, Key: history.StringValue("k"), Value: v, Status: history.OK}
				c, err := m.Compile(op, NewTable())
				if err != nil {
					t.Fatalf("%s: compile %s: %v", info.Name, f, err)
				}
				want := o.Class
				if want == CASOp {
					want = OtherOp
				}
				if got := rw.Class(&c); got != want {
					t.Errorf("%s: %s compiles to class %d, want %d", info.Name, f, got, want)
				}
			}
		}
	}
}
