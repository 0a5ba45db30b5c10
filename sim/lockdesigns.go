package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Checker gives the verdict "histcheck check -c CRITERION" gives a history
// with the settings it carries: "true", "false" or "unknown". The
// lock-designs scenario needs one to fill its matrix, and the eventual one
// to place its runs on the ladder; the command line supplies it, so that
// this package stays free of the checkers.
type Checker func(h *history.History, criterion string) (string, error)

// LockDesign is a column of the lock design review.
type LockDesign struct {
	ID, Name string
	// Service is how the lock is kept: "redis" (one instance), "setnx"
	// (one instance, two commands), "redlock" (five instances),
	// "zookeeper", "etcd", or "cas" (no lock: a compare-and-set write).
	Service string
	Fencing bool
}

// LockDesigns are the designs the review compares, each lock with and
// without fencing, and a lock-free compare-and-set.
func LockDesigns() []LockDesign {
	base := []LockDesign{
		{"set-nx-px", "SET NX PX", "redis", false},
		{"setnx-expire", "SETNX+EXPIRE", "setnx", false},
		{"redlock", "Redlock", "redlock", false},
		{"zookeeper", "ZooKeeper recipe", "zookeeper", false},
		{"etcd", "etcd lock", "etcd", false},
	}
	var out []LockDesign
	for _, d := range base {
		f := d
		f.ID, f.Name, f.Fencing = d.ID+"+fencing", d.Name+" + fencing", true
		out = append(out, d, f)
	}
	return append(out, LockDesign{"cas", "compare-and-set, no lock", "cas", false})
}

// LockFailure is a row of the lock design review.
type LockFailure struct{ ID, Name string }

// LockFailures are the failure modes the review asks about, in order.
func LockFailures() []LockFailure {
	return []LockFailure{
		{"pause", "holder pause"},
		{"isolation", "network isolation"},
		{"failover", "lock-service failover"},
		{"clock-jump", "clock jump"},
	}
}

// lockDesignTTL is the lease (or session timeout) every design uses.
const lockDesignTTL = 10_000 // ms

// consensus reports whether the design's lock service replicates by
// consensus and times leases on a monotonic clock.
func (d LockDesign) consensus() bool { return d.Service == "zookeeper" || d.Service == "etcd" }

// LockDesignRun is one cell of the review: design d under failure f.
type LockDesignRun struct {
	Design  LockDesign
	Failure string
	tl      timeline
	spec    string
	opts    model.Options
}

// RunLockDesign tells what happens to design d under failure f. A takes the
// lock at 0 and writes at 1 s; then the failure strikes; B asks for the lock
// and writes under it; A writes once more, believing it still holds the
// lock. Every write carries the grant number of its writer's lock (1 for
// A, 2 for B), as a test harness records it: unfenced storage ignores it,
// fenced storage refuses a number lower than one it has accepted. A
// consensus service (ZooKeeper, etcd) keeps its grants through a failover
// and times sessions on a monotonic clock; a Redis one loses an
// unreplicated key on failover and expires keys early when its clock
// jumps. Compare-and-set needs no lock: each write names the value it
// read.
func RunLockDesign(d LockDesign, failure string) LockDesignRun {
	r := LockDesignRun{Design: d, Failure: failure, spec: "lock=lease,storage=fenced-register",
		opts: model.Options{TTL: lockDesignTTL}}
	t := &r.tl
	if d.Service == "cas" {
		r.casRun()
		return r
	}
	var highest int64
	write := func(who string, at, grant int64) {
		o := storeOp(who, "write", "storage", history.StringValue(fmt.Sprintf("%s@%s", who, secs(at))), grant, at, at+10, history.OK)
		if d.Fencing && grant < highest {
			o.Status = history.Fail
			t.add(o, "%s writes with grant %d: refused, the storage has accepted %d", who, grant, highest)
			return
		}
		highest = max(highest, grant)
		t.add(o, "%s writes with grant %d: accepted", who, grant)
	}
	t.add(lockOp("A", "acquire", 1, 0, 10, history.OK), "A takes the lock (%s, lease %s s)", d.Name, secs(lockDesignTTL))
	write("A", 1000, 1)
	// bAt is when B's acquire returns; aLate is when A writes again.
	var bCall, bAt, aLate int64
	aReleases := false
	switch failure {
	case "pause", "isolation":
		if failure == "pause" {
			t.note(2000, "A", "A pauses (GC) until 15 s")
		} else {
			t.note(2000, "A", "A is cut off from the lock service, but not from the storage, until 15 s")
		}
		t.note(lockDesignTTL, "", "A's lease ends on the lock service's clock")
		bCall, bAt, aLate = 11_000, 11_010, 15_000
	case "failover":
		if d.consensus() {
			t.note(2000, "", "the service's leader fails; a new one is elected and keeps A's grant, committed on a majority")
			bCall, bAt, aLate, aReleases = 3000, 5010, 4000, true
		} else if d.Service == "redlock" {
			t.note(500, "", "one of the three masters holding A's key restarts without persistence and loses it, so B gathers three")
		} else {
			t.note(500, "", "the primary dies before its replica has A's key; the replica is promoted without it")
			bCall, bAt, aLate = 3000, 3010, 4000
		}
	case "clock-jump":
		if d.consensus() {
			t.note(2000, "", "a server's wall clock jumps 10 s forward; sessions are timed on a monotonic clock and do not expire")
			bCall, bAt, aLate, aReleases = 3000, 5010, 4000, true
		} else {
			what := "the Redis server's clock"
			if d.Service == "redlock" {
				what = "the clock of one of the three masters holding A's key, so B gathers three"
			}
			t.note(2000, "", "%s jumps 10 s forward: A's key expires early", what)
			bCall, bAt, aLate = 3000, 3010, 4000
		}
	}
	if aReleases {
		write("A", aLate, 1)
		t.add(lockOp("A", "release", 1, 5000, 5001, history.OK), "A releases the lock")
		t.add(lockOp("B", "acquire", 2, bCall, bAt, history.OK), "B asks for the lock at %s s and gets it at %s s, once A released it", secs(bCall), secs(bAt))
		write("B", 6000, 2)
		t.add(lockOp("B", "release", 2, 7000, 7001, history.OK), "B releases the lock")
		return r
	}
	t.add(lockOp("B", "acquire", 2, bCall, bAt, history.OK), "B takes the lock")
	write("B", bAt+990, 2)
	write("A", max(aLate, bAt+1990), 1)
	aRel := max(aLate, bAt+1990) + 100
	t.add(lockOp("A", "release", 1, aRel, aRel+1, history.Fail), "A's release finds another holder and does nothing")
	t.add(lockOp("B", "release", 2, aRel+1000, aRel+1001, history.OK), "B releases the lock")
	return r
}

// casRun is the lock-free design: every write is a compare-and-set from the
// value its writer read, so a late one fails whatever the failure.
func (r *LockDesignRun) casRun() {
	t := &r.tl
	r.spec, r.opts = "cas-register", model.Options{Init: history.IntValue(10)}
	stock := history.Value{}
	read := func(who string, at, v int64) {
		t.add(op(who, "read", stock, history.IntValue(v), at, at+10, history.OK), "%s reads stock %d", who, v)
	}
	cas := func(who string, at, from, to int64, ok bool) {
		o := op(who, "cas", stock, history.ListValue(history.IntValue(from), history.IntValue(to)), at, at+10, history.OK)
		if !ok {
			o.Status = history.Fail
			t.add(o, "%s: set stock = %d where stock = %d: no row matches, nothing written", who, to, from)
			return
		}
		t.add(o, "%s: set stock = %d where stock = %d: done", who, to, from)
	}
	read("A", 1000, 10)
	t.note(2000, "A", "A is stalled by the %s until 15 s", r.Failure)
	read("B", 11_000, 10)
	cas("B", 12_000, 10, 8, true)
	cas("A", 15_000, 10, 9, false)
	read("A", 16_000, 8)
	cas("A", 17_000, 8, 7, true)
}

// History returns the cell's history with the settings to check it.
func (r LockDesignRun) History() (*history.History, error) {
	init := r.opts.Init
	return build("lock-designs", append([]history.Op(nil), r.tl.ops...), metaTTL(r.spec, init, r.opts.TTL))
}

// Table renders the cell's timeline.
func (r LockDesignRun) Table() string {
	return fmt.Sprintf("%s under %s:\n\n", r.Design.Name, r.Failure) + r.tl.table()
}

func lockDesignsScenario(check Checker) Scenario {
	var ids, fids []string
	for _, d := range LockDesigns() {
		ids = append(ids, d.ID)
	}
	for _, f := range LockFailures() {
		fids = append(fids, f.ID)
	}
	flags := []Flag{
		{Name: "design", Default: "set-nx-px", Usage: "the design whose history --emit history writes: " + strings.Join(ids, ", ")},
		{Name: "failure", Default: "pause", Usage: "the failure mode of that run: " + strings.Join(fids, ", ")},
	}
	return Scenario{
		Name:        "lock-designs",
		Description: "the lock design review: designs across, failure modes down, each cell the verdict of check on that run's history",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			id, err := parseChoice("design", v["design"], ids...)
			if err != nil {
				return nil, err
			}
			failure, err := parseChoice("failure", v["failure"], fids...)
			if err != nil {
				return nil, err
			}
			if check == nil {
				return nil, fmt.Errorf("lock-designs needs a checker to fill its matrix")
			}
			var sb strings.Builder
			header := []string{"failure mode"}
			for _, d := range LockDesigns() {
				header = append(header, d.Name)
			}
			var rows [][]string
			var chosen LockDesignRun
			var expect string
			for _, f := range LockFailures() {
				row := []string{f.Name}
				for _, d := range LockDesigns() {
					run := RunLockDesign(d, f.ID)
					h, err := run.History()
					if err != nil {
						return nil, err
					}
					verdict, err := check(h, checker.Linearizable)
					if err != nil {
						return nil, fmt.Errorf("%s under %s: %w", d.ID, f.ID, err)
					}
					row = append(row, verdict)
					if d.ID == id && f.ID == failure {
						chosen, expect = run, verdict
					}
				}
				rows = append(rows, row)
			}
			sb.WriteString("Each cell is the verdict of \"histcheck check\" on that run's history: true when the lock had one holder at a time and the storage took no stale write.\n\n")
			sb.WriteString(mdTable(header, rows))
			sb.WriteString("\n")
			sb.WriteString(chosen.Table())
			h, err := chosen.History()
			if err != nil {
				return nil, err
			}
			shows := "Every lock fails under a pause or an isolation unless the storage checks tokens, since the holder cannot know its lease ended. " +
				"Only the consensus services (ZooKeeper, etcd) keep one holder through a failover or a clock jump; the Redis designs give the lock twice, " +
				"which no token repairs, and a compare-and-set needs no lock at all. " +
				"SETNX+EXPIRE fares like SET NX PX here; its own failure, a crash between its two commands, is the setnx-expire scenario."
			return &Output{Table: closing(sb.String(), shows, "lock-designs", flags, v, expect), History: h, Model: chosen.spec,
				Options: chosen.opts, Expect: expect}, nil
		},
	}
}
