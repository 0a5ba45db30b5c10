package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The quorum scenario's setting: N = 3 replicas, R = W = 2.
const (
	quorumN = 3
	quorumR = 2
	quorumW = 2
)

// stamped is a replica's copy: a value and the timestamp it was written
// with.
type stamped struct {
	value int64
	ts    int64
}

// QuorumResult is one run of the quorum scenario.
type QuorumResult struct {
	Timestamps string // "clock" (the writer's wall clock) or "quorum" (read the highest, add one)
	Skew       int64  // ms A's clock runs ahead
	rows       [][]string
	ops        []history.Op
}

// Quorum runs a last-write-wins quorum store: three replicas, writes to two,
// reads from two (R + W > N, so every read quorum meets every write
// quorum). A's clock runs skew ms ahead. A writes 1 at 100 ms, stamped
// with its clock; B writes 2 at 200 ms, after A's write returned; R2,
// which holds A's copy with the larger stamp, keeps it. Readers at 300 and
// 400 ms pick the copy with the largest stamp, 1, although 2 was written
// later: the overlap finds the newest stamp, not the newest write. With
// quorum timestamps a writer first reads the highest stamp from R replicas
// and writes with one more, and reads return 2.
func Quorum(timestamps string, skew int64) QuorumResult {
	res := QuorumResult{Timestamps: timestamps, Skew: skew}
	replicas := make([]stamped, quorumN)
	state := func() string {
		parts := make([]string, quorumN)
		for i, r := range replicas {
			parts[i] = fmt.Sprintf("R%d %d@%d", i+1, r.value, r.ts)
		}
		return strings.Join(parts, ", ")
	}
	names := func(set []int) string {
		parts := make([]string, len(set))
		for i, r := range set {
			parts[i] = fmt.Sprintf("R%d", r+1)
		}
		return strings.Join(parts, ", ")
	}
	clock := map[string]int64{"A": skew}
	write := func(who string, at, v int64, set []int) {
		ts := at + clock[who]
		how := fmt.Sprintf("stamped %d by %s's clock", ts, who)
		if timestamps == "quorum" {
			var highest int64
			for _, r := range set[:quorumR] {
				highest = max(highest, replicas[r].ts)
			}
			ts = highest + 1
			how = fmt.Sprintf("stamped %d, one more than the highest stamp on %s", ts, names(set[:quorumR]))
		}
		for _, r := range set {
			if ts > replicas[r].ts {
				replicas[r] = stamped{v, ts}
			}
		}
		res.ops = append(res.ops, op(who, "write", history.Value{}, history.IntValue(v), at, at+20, history.OK))
		res.rows = append(res.rows, []string{fmt.Sprint(at), who, fmt.Sprintf("write %d, %s, to %s", v, how, names(set)), "ok", state()})
	}
	read := func(who string, at int64, set []int) {
		best := replicas[set[0]]
		for _, r := range set[1:] {
			if replicas[r].ts > best.ts {
				best = replicas[r]
			}
		}
		for _, r := range set { // read repair
			if best.ts > replicas[r].ts {
				replicas[r] = best
			}
		}
		res.ops = append(res.ops, op(who, "read", history.Value{}, history.IntValue(best.value), at, at+20, history.OK))
		res.rows = append(res.rows, []string{fmt.Sprint(at), who, "read from " + names(set), fmt.Sprint(best.value), state()})
	}
	write("A", 100, 1, []int{0, 1})
	write("B", 200, 2, []int{1, 2})
	read("C", 300, []int{0, 1})
	read("D", 400, []int{1, 2})
	return res
}

// Table renders the run.
func (r QuorumResult) Table() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "N = %d, W = %d, R = %d: R + W = %d > N, so every read quorum meets every write quorum. Last write wins by timestamp; A's clock runs %d ms ahead",
		quorumN, quorumW, quorumR, quorumR+quorumW, r.Skew)
	if r.Timestamps == "quorum" {
		sb.WriteString(", but stamps come from the quorum, not from clocks")
	}
	sb.WriteString(".\n\n")
	sb.WriteString(mdTable([]string{"time (ms)", "client", "operation", "result", "replicas after (value@stamp)"}, r.rows))
	return sb.String()
}

// History returns the run as a register history starting at 0; each
// operation takes 20 ms.
func (r QuorumResult) History() (*history.History, error) {
	return build("quorum", append([]history.Op(nil), r.ops...), metaFor("register", history.IntValue(0)))
}

func (r QuorumResult) linearizable() bool {
	return r.ops[2].Value == history.IntValue(2) && r.ops[3].Value == history.IntValue(2)
}

func (r QuorumResult) shows() string {
	if r.linearizable() && r.Timestamps == "clock" {
		return "With A's clock no further ahead than the gap between the writes, B's later write carries the larger stamp and wins. " +
			"Checked as a register starting at 0, the history is linearizable; a larger skew (the default 150 ms) breaks it."
	}
	if r.linearizable() {
		return "With stamps taken from the quorum (the highest a read quorum holds, plus one), B's later write carries the larger stamp and wins everywhere. " +
			"Checked as a register starting at 0, the history is linearizable."
	}
	return "The quorums overlap, so every read finds the copy with the largest stamp; but A's fast clock gave its earlier write the larger stamp, " +
		"so B's later write lost on R2 and every read returns 1. Checked as a register starting at 0, the history is not linearizable: R + W > N is not enough."
}

func quorumScenario() Scenario {
	flags := []Flag{
		{Name: "timestamps", Default: "clock", Usage: "clock (each writer stamps with its own wall clock) or quorum (read the highest stamp from R replicas, add one)"},
		{Name: "skew", Default: "150", Usage: "ms A's clock runs ahead (0 to 100000)"},
	}
	return Scenario{
		Name:        "quorum",
		Description: "a quorum store with R + W > N, last-write-wins and clock skew: a non-linearizable history despite the overlap",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			ts, err := parseChoice("timestamps", v["timestamps"], "clock", "quorum")
			if err != nil {
				return nil, err
			}
			skew, err := parseInt("skew", v["skew"], 0, 100_000)
			if err != nil {
				return nil, err
			}
			res := Quorum(ts, int64(skew))
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := verdictOf(res.linearizable())
			return &Output{Table: closing(res.Table(), res.shows(), "quorum", flags, v, expect), History: h, Model: "register",
				Options: model.Options{Init: history.IntValue(0)}, Expect: expect}, nil
		},
	}
}
