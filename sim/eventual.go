package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The eventual-consistency scenario's setting: two replicas, 50 ms of
// replication delay, anti-entropy at 200 ms.
const (
	eventualDelay   = 50
	eventualAntiEnt = 200
)

// EventualRead is one read of the eventual scenario and the session
// guarantees it broke.
type EventualRead struct {
	T       int64
	Client  string
	Replica string
	Got     int64
	RYW, MR bool
}

// EventualResult is one run of the eventual scenario.
type EventualResult struct {
	Merge string // "lww" or "crdt"
	Reads []EventualRead
	// Diverged lists the times at which both replicas had received the same
	// updates yet held different values.
	Diverged []int64
	Final    [2]int64 // the replicas' values at the end
	ops      []history.Op
	rows     [][]string
}

// Eventual runs one register on two replicas R1 and R2 with clients c1
// (at R1) and c2 (at R2). c1 writes 1 at 0 ms and c2 writes 2 at 10 ms
// (stamps 1 and 2); each write reaches the other replica 50 ms later. With
// lww each replica applies updates as they arrive, the last arrival
// winning, and anti-entropy at 200 ms settles both on the highest stamp:
// eventual consistency, the replicas converge once writes stop, but R2,
// having received both writes, holds 1 until then and c2 reads 1 after its
// own write of 2. With crdt each replica joins every update by its stamp
// (a last-writer-wins register CRDT, a join-semilattice): replicas that
// received the same updates are equal at once, strong eventual
// consistency, and both sessions keep their guarantees.
func Eventual(merge string) EventualResult {
	res := EventualResult{Merge: merge}
	type upd struct {
		value, stamp int64
		at           [2]int64 // when each replica receives it
	}
	updates := []upd{{1, 1, [2]int64{0, eventualDelay}}, {2, 2, [2]int64{10 + eventualDelay, 10}}}
	replica := func(r int, t int64) (value, stamp int64) {
		// The updates replica r has received by t, in arrival order.
		var got []upd
		for _, u := range updates {
			if u.at[r] <= t {
				got = append(got, u)
			}
		}
		if len(got) == 2 && got[0].at[r] > got[1].at[r] {
			got[0], got[1] = got[1], got[0]
		}
		for _, u := range got {
			if merge == "crdt" || t >= eventualAntiEnt {
				if u.stamp > stamp {
					value, stamp = u.value, u.stamp
				}
			} else {
				value, stamp = u.value, u.stamp
			}
		}
		return value, stamp
	}
	names := [2]string{"R1", "R2"}
	clients := [2]string{"c1", "c2"}
	wrote := map[string]int64{}
	seen := map[string]int64{}
	write := func(c int, t int64, v int64) {
		o := op(clients[c], "write", history.Value{}, history.IntValue(v), t, t+1, history.OK)
		o.Version = history.IntValue(v)
		res.ops = append(res.ops, o)
		wrote[clients[c]] = v
		res.rows = append(res.rows, []string{fmt.Sprint(t), clients[c], fmt.Sprintf("writes %d at %s (stamp %d)", v, names[c], v), "", ""})
	}
	read := func(c int, t int64) {
		v, stamp := replica(c, t)
		r := EventualRead{T: t, Client: clients[c], Replica: names[c], Got: v}
		r.RYW = stamp < wrote[clients[c]]
		r.MR = stamp < seen[clients[c]]
		seen[clients[c]] = max(seen[clients[c]], stamp)
		res.Reads = append(res.Reads, r)
		o := op(clients[c], "read", history.Value{}, history.IntValue(v), t, t+1, history.OK)
		o.Version = history.IntValue(stamp)
		res.ops = append(res.ops, o)
		var broken []string
		if r.RYW {
			broken = append(broken, "RYW")
		}
		if r.MR {
			broken = append(broken, "MR")
		}
		r1, _ := replica(0, t)
		r2, _ := replica(1, t)
		res.rows = append(res.rows, []string{fmt.Sprint(t), clients[c], fmt.Sprintf("reads %d at %s", v, names[c]),
			fmt.Sprintf("R1 %d, R2 %d", r1, r2), strings.Join(broken, ", ")})
	}
	write(0, 0, 1)
	write(1, 10, 2)
	read(0, 20)
	read(1, 30)
	read(0, 70)
	read(1, 70)
	read(1, 150)
	read(0, 250)
	read(1, 250)
	for t := int64(0); t <= 300; t += 10 {
		a, _ := replica(0, t)
		b, _ := replica(1, t)
		if t >= 10+eventualDelay && a != b {
			res.Diverged = append(res.Diverged, t)
		}
	}
	res.Final[0], _ = replica(0, 300)
	res.Final[1], _ = replica(1, 300)
	return res
}

// Table renders the run.
func (r EventualResult) Table() string {
	var sb strings.Builder
	if r.Merge == "crdt" {
		sb.WriteString("Two replicas, each joining every update by its stamp (a last-writer-wins register CRDT):\n\n")
	} else {
		sb.WriteString("Two replicas, each applying updates as they arrive (last arrival wins), anti-entropy at 200 ms:\n\n")
	}
	sb.WriteString(mdTable([]string{"t (ms)", "client", "operation", "replicas", "broken"}, r.rows))
	if len(r.Diverged) > 0 {
		fmt.Fprintf(&sb, "\nBoth replicas had both writes from 60 ms on, yet they differed until %d ms; both hold %d at the end.\n",
			r.Diverged[len(r.Diverged)-1]+10, r.Final[0])
	} else {
		fmt.Fprintf(&sb, "\nThe replicas were equal as soon as both had both writes (60 ms); both hold %d at the end.\n", r.Final[0])
	}
	return sb.String()
}

// History returns the run as a register history starting at 0, each
// operation carrying the stamp of its value as its version.
func (r EventualResult) History() (*history.History, error) {
	return build("eventual", append([]history.Op(nil), r.ops...), metaFor("register", history.IntValue(0)))
}

func (r EventualResult) broken() bool {
	for _, x := range r.Reads {
		if x.RYW || x.MR {
			return true
		}
	}
	return false
}

func (r EventualResult) shows() string {
	if r.Merge == "crdt" {
		return "Strong eventual consistency: replicas with the same updates are equal at once, and each client's reads keep " +
			"read-your-writes and monotonic reads; the history is still not linearizable (c1 read 1 after c2's write of 2 had returned). " +
			"\"histcheck check -c all\" on it places it on the ladder: sequential holds, linearizable does not."
	}
	return "Eventual consistency promises only that the replicas converge once writes stop: R2 had both writes yet held 1 until anti-entropy, " +
		"so c2 read 1 after writing 2 and after reading 2, breaking read-your-writes and monotonic reads. " +
		"\"histcheck check -c all\" on it places it on the ladder: it is neither linearizable nor sequential."
}

// ladderTable checks both runs' histories against every criterion and
// renders the verdicts side by side.
func ladderTable(check Checker) (string, error) {
	runs := []EventualResult{Eventual("lww"), Eventual("crdt")}
	hs := make([]*history.History, len(runs))
	for i, r := range runs {
		h, err := r.History()
		if err != nil {
			return "", err
		}
		hs[i] = h
	}
	var rows [][]string
	for _, c := range checker.AllCriteria {
		row := []string{c}
		for _, h := range hs {
			v, err := check(h, c)
			if err != nil {
				return "", fmt.Errorf("%s: %w", c, err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return "What \"histcheck check -c CRITERION\" says of each run's history, strongest criterion first:\n\n" +
		mdTable([]string{"criterion", "lww", "crdt"}, rows), nil
}

func eventualScenario(check Checker) Scenario {
	flags := []Flag{{Name: "merge", Default: "lww",
		Usage: "lww (apply updates as they arrive, the last arrival wins; anti-entropy later) or crdt (join every update by its stamp: strong eventual consistency)"}}
	return Scenario{
		Name:        "eventual",
		Description: "replicas converging with last-write-wins versus a CRDT: which session guarantees and ladder rungs each keeps",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			merge, err := parseChoice("merge", v["merge"], "lww", "crdt")
			if err != nil {
				return nil, err
			}
			res := Eventual(merge)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			table := res.Table()
			if check != nil {
				ladder, err := ladderTable(check)
				if err != nil {
					return nil, err
				}
				table += "\n" + ladder
			}
			expect := verdictOf(!res.broken())
			return &Output{Table: closingWith(table, res.shows(), "eventual", flags, v, expect, "-c read-your-writes,monotonic-reads"),
				History: h, Model: "register", Options: model.Options{Init: history.IntValue(0)}, Expect: expect, Plain: "false"}, nil
		},
	}
}
