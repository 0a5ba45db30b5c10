package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The check-then-write race: a 10 s lease checked at 9.9 s, a 6 s pause.
const (
	ctwLease = 10_000 // ms
	ctwCheck = 9_900  // ms: A asks whether the lease is still its own
	ctwPause = 6_000  // ms of GC between the check and the write
)

// CheckThenWriteResult is one run of the check-then-write race.
type CheckThenWriteResult struct {
	Remedy     string // none, fencing or conditional
	tl         timeline
	FinalStock int
}

// checkThenWriteModels are the models the run's history is checked with:
// storage that checks tokens, or one that does compare-and-set.
var checkThenWriteModels = map[string]string{
	"none":        "lock=lease,stock=fenced-register",
	"fencing":     "lock=lease,stock=fenced-register",
	"conditional": "lock=lease,stock=cas-register",
}

// CheckThenWrite runs the race: A holds a 10 s lease (token 33) and reads
// stock 10; at 9.9 s it asks the lock service whether the lease is still
// its own and hears yes; a 6 s GC pause falls between that answer and the
// write, which reaches the storage at 15.9 s, long after the lease ended
// at 10 s. Meanwhile B took the lock at 11 s (token 34), read 10 and wrote
// 8. No check inside A closes the gap; only the storage can: with fencing
// it refuses token 33 after 34, with a conditional write (compare-and-set
// from the value A read) A's write finds 8, not 10, and fails.
func CheckThenWrite(remedy string) CheckThenWriteResult {
	res := CheckThenWriteResult{Remedy: remedy}
	t := &res.tl
	stock := history.StringValue("stock")
	value, highest := 10, int64(0)
	write := func(who string, at int64, from, to int, token int64) {
		var o history.Op
		ok := true
		switch remedy {
		case "conditional":
			o = op(who, "cas", stock, history.ListValue(history.IntValue(int64(from)), history.IntValue(int64(to))), at, at+10, history.OK)
			ok = value == from
		default:
			o = storeOp(who, "write", "stock", history.IntValue(int64(to)), token, at, at+10, history.OK)
			ok = remedy != "fencing" || token >= highest
		}
		if !ok {
			o.Status = history.Fail
			why := fmt.Sprintf("the storage has accepted token %d", highest)
			if remedy == "conditional" {
				why = fmt.Sprintf("the stock is %d, not %d", value, from)
			}
			t.add(o, "%s's write of %d reaches the storage: refused, %s", who, to, why)
			return
		}
		value, highest = to, max(highest, token)
		if remedy == "conditional" {
			t.add(o, "%s writes %d if the stock is still %d: done", who, to, from)
		} else {
			t.add(o, "%s's write of %d with token %d reaches the storage: accepted", who, to, token)
		}
	}
	read := func(who string, at int64) int {
		t.add(op(who, "read", stock, history.IntValue(int64(value)), at, at+10, history.OK), "%s reads stock %d", who, value)
		return value
	}
	t.add(lockOp("A", "acquire", 33, 0, 10, history.OK), "A acquires the lock (token 33, lease until %s s)", secs(ctwLease))
	a := read("A", 1000)
	t.note(ctwCheck, "A", "A asks: is the lease still mine? yes (%s s left)", secs(ctwLease-ctwCheck))
	t.note(ctwCheck+10, "A", "A pauses (GC) for %s s, its write to the stock in hand", secs(ctwPause))
	t.note(ctwLease, "", "A's lease ends")
	t.add(lockOp("B", "acquire", 34, 11_000, 11_010, history.OK), "B acquires the lock (token 34, lease until 21 s)")
	b := read("B", 12_000)
	write("B", 13_000, b, b-2, 34)
	t.add(lockOp("B", "release", 34, 13_020, 13_030, history.OK), "B releases the lock")
	write("A", ctwCheck+ctwPause, a, a-1, 33)
	res.FinalStock = value
	return res
}

// Table renders the timeline.
func (r CheckThenWriteResult) Table() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Check, then write (lease %s s, checked at %s s, pause %s s, remedy %s):\n\n", secs(ctwLease), secs(ctwCheck), secs(ctwPause), r.Remedy)
	sb.WriteString(r.tl.table())
	fmt.Fprintf(&sb, "\nThe write reached the storage at %s s, %s s after the lease ended at %s s. Final stock %d",
		secs(ctwCheck+ctwPause), secs(ctwCheck+ctwPause-ctwLease), secs(ctwLease), r.FinalStock)
	if r.FinalStock == 8 {
		sb.WriteString(": A's stale write was refused, B's sale stands.\n")
	} else {
		sb.WriteString(": A's stale write overwrote B's sale, a lost update.\n")
	}
	return sb.String()
}

// History returns the run: the lock on key "lock" (acquire with the token,
// release) and the stock on key "stock", starting at 10 (reads; writes
// carrying the writer's token, or compare-and-sets with the conditional
// remedy; a refused one fails).
func (r CheckThenWriteResult) History() (*history.History, error) {
	return build("check-then-write", append([]history.Op(nil), r.tl.ops...),
		metaTTL(checkThenWriteModels[r.Remedy], history.IntValue(10), ctwLease))
}

func (r CheckThenWriteResult) shows() string {
	s := "The lease check at 9.9 s said yes, but a check inside the holder can never close the gap to its write: the pause fell in between. "
	switch r.Remedy {
	case "fencing":
		return s + "Fenced storage refuses token 33 once it has accepted 34, and the check (lease, fenced register) passes."
	case "conditional":
		return s + "A conditional write (set 9 if the stock is still 10) finds 8 and fails, and the check (lease, compare-and-set register) passes."
	}
	return s + "Checked with the lease model for the lock and the fenced-register model for the stock, the history fails: " +
		"the storage took token 33 after 34."
}

func checkThenWriteScenario() Scenario {
	flags := []Flag{{Name: "remedy", Default: "none",
		Usage: "none, fencing (the storage refuses stale tokens) or conditional (a compare-and-set write)"}}
	return Scenario{
		Name:        "check-then-write",
		Description: "the lease checked at 9.9 s, a 6 s pause, the write at 15.9 s after the lease ended at 10 s",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			remedy, err := parseChoice("remedy", v["remedy"], "none", "fencing", "conditional")
			if err != nil {
				return nil, err
			}
			res := CheckThenWrite(remedy)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := verdictOf(remedy != "none")
			return &Output{Table: closing(res.Table(), res.shows(), "check-then-write", flags, v, expect), History: h,
				Model: checkThenWriteModels[remedy], Options: model.Options{Init: history.IntValue(10), TTL: ctwLease}, Expect: expect}, nil
		},
	}
}
