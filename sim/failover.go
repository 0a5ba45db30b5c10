package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The Redis failover scenario's setting.
const (
	failoverTTL     = 10_000 // ms
	failoverCrash   = 500    // ms: the primary dies
	failoverShip    = 1000   // ms: when the replica would have received A's key
	failoverPromote = 3000   // ms: the replica is promoted
)

// FailoverResult is one run of the failover scenario.
type FailoverResult struct {
	Wait       bool // A waits for the replica to acknowledge (WAIT 1) before it counts the lock as taken
	tl         timeline
	TwoHolders bool
}

// Failover runs a Redis lock through a failover with asynchronous
// replication: A sets the lock on the primary at 0 (SET NX PX 10000) and is
// answered at once; the primary dies at 0.5 s, before shipping the key to
// its replica (due at 1 s); the replica is promoted at 3 s without the key,
// and B's SET NX on it succeeds at 3.5 s while A still holds a lease until
// 10 s: two holders. With wait, A follows its SET with WAIT 1 and counts the
// lock as taken only when the replica has it; the primary dies first, so
// WAIT reports no replica, A does not act, and after the promotion B is
// the only holder.
func Failover(wait bool) FailoverResult {
	res := FailoverResult{Wait: wait}
	t := &res.tl
	if wait {
		// A cannot tell whether its SET counts: its outcome is unknown.
		t.add(lockOp("A", "acquire", 0, 0, history.Infinity, history.Info),
			"A: `SET lock A NX PX 10000` → OK, then `WAIT 1 2000` → 0 replicas after 2 s: A does not count the lock as taken")
	} else {
		t.add(lockOp("A", "acquire", 0, 0, 1, history.OK), "A: `SET lock A NX PX 10000` on the primary → OK: A holds the lock until 10 s")
	}
	t.note(failoverCrash, "", "the primary dies; the replica never received A's key (it would have at %s s)", secs(failoverShip))
	t.note(failoverPromote, "", "the replica is promoted to primary, without A's key")
	t.add(lockOp("B", "acquire", 0, 3500, 3501, history.OK), "B: `SET lock B NX PX 10000` on the new primary → OK: B holds the lock")
	if !wait {
		res.TwoHolders = true
		t.add(storeOp("A", "write", "storage", history.StringValue("A"), 0, 4000, 4010, history.OK), "A writes to the storage under its lock")
	} else {
		t.add(lockOp("A", "acquire", 0, 4000, 4001, history.Fail), "A tries again on the new primary: `SET lock A NX PX 10000` → nil, B holds it")
	}
	t.add(storeOp("B", "write", "storage", history.StringValue("B"), 0, 4500, 4510, history.OK), "B writes to the storage under its lock")
	t.add(lockOp("B", "release", 0, 5000, 5001, history.OK), "B releases the lock (compare-and-delete of its value)")
	return res
}

// Table renders the timeline.
func (r FailoverResult) Table() string {
	var sb strings.Builder
	if r.Wait {
		sb.WriteString("Redis failover, A waits for its replica (WAIT 1):\n\n")
	} else {
		sb.WriteString("Redis failover with asynchronous replication:\n\n")
	}
	sb.WriteString(r.tl.table())
	if r.TwoHolders {
		fmt.Fprintf(&sb, "\nTwo holders from 3.5 s: A's lease runs until %s s, and the promoted replica gave the lock to B.\n", secs(failoverTTL))
	} else {
		sb.WriteString("\nOne holder: A never counted a lock its replica did not have.\n")
	}
	return sb.String()
}

// History returns the run: the lock on key "lock" (a refused acquire
// fails; one A could not confirm has an unknown outcome) and the storage writes on key "storage", checked with the
// 10 s lease for the lock and a plain register for the storage.
func (r FailoverResult) History() (*history.History, error) {
	return build("failover", append([]history.Op(nil), r.tl.ops...), metaTTL(FailoverModel, history.Value{}, failoverTTL))
}

// FailoverModel is how the failover history is checked.
const FailoverModel = "lock=lease,storage=register"

func (r FailoverResult) shows() string {
	if r.TwoHolders {
		return "Replication is asynchronous by default: A's lock was acknowledged by a primary that died before its replica had it, " +
			"so the promoted replica handed the lock to B while A's lease still ran. Checked as a 10 s lease, the history fails: two holders at once."
	}
	return "With WAIT 1, A counts the lock only once the replica has it; the primary died first, so A stood back and B alone held the lock after the promotion. " +
		"Checked as a 10 s lease, the history passes (WAIT narrows the gap but does not make Redis replication consistent in every failover)."
}

func failoverScenario() Scenario {
	flags := []Flag{{Name: "wait", Default: "off",
		Usage: "on: A waits for the replica to acknowledge the lock (WAIT 1) before counting it as taken; off: it does not"}}
	return Scenario{
		Name:        "failover",
		Description: "Redis failover with asynchronous replication: A's lock is lost on promotion and B acquires",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			wait, err := parseChoice("wait", v["wait"], "on", "off")
			if err != nil {
				return nil, err
			}
			res := Failover(wait == "on")
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := verdictOf(!res.TwoHolders)
			return &Output{Table: closing(res.Table(), res.shows(), "failover", flags, v, expect), History: h, Model: FailoverModel,
				Options: model.Options{TTL: failoverTTL}, Expect: expect}, nil
		},
	}
}
