package sim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
)

// txnLadder are the levels the txn scenario's table reports, strongest
// first.
var txnLadder = []string{elle.StrictSerializable, elle.Serializable, elle.SnapshotIsolation,
	elle.RepeatableRead, elle.ReadCommitted, elle.ReadUncommitted}

// txnMechanism says, per isolation level, how the simulated store behaves.
var txnMechanism = map[string]string{
	IsoSerializable: "The store runs each transaction at one instant inside its interval, so the transactions have one order that real time agrees with.",
	IsoSnapshot: "Each transaction reads a snapshot taken when it begins and commits unless a transaction that committed meanwhile wrote one of its keys. " +
		"Two that read the same keys and write different ones both commit: write skew, a cycle with two adjacent rw dependencies (G2-item).",
	IsoReadCommitted: "Each read sees the latest committed state, and writes take effect at commit, locking their keys without waiting. " +
		"Two transactions that read a key and both write it both commit: a lost update.",
	IsoBroken: "Writes take effect as they happen, for every transaction to see, and are taken back when their transaction aborts: " +
		"reads of aborted writes (G1a), of intermediate ones (G1b) and interleaved writes (G0).",
}

func txnScenario() Scenario {
	flags := []Flag{
		{Name: "isolation", Default: IsoSerializable, Usage: "the store's isolation: " + strings.Join(Isolations, ", ")},
		{Name: "workload", Default: "list-append", Usage: "list-append or rw-register"},
		{Name: "txns", Default: "1000", Usage: "number of transactions"},
		{Name: "clients", Default: "5", Usage: "concurrent clients"},
		{Name: "keys", Default: "3", Usage: "keys in use at a time"},
		{Name: "writes-per-key", Default: "8", Usage: "writes a key takes before a fresh one replaces it"},
		{Name: "max-length", Default: "4", Usage: "most micro-operations per transaction"},
		{Name: "fail-rate", Default: "0.05", Usage: "probability that a transaction aborts"},
		{Name: "crash-rate", Default: "0.02", Usage: "probability that a transaction's outcome is unknown"},
		{Name: "seed", Default: "1", Usage: "generator seed"},
	}
	return Scenario{
		Name:        "txn",
		Description: "transactions on a simulated store at a chosen isolation level, and the levels their history holds",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			o, err := txnOptions(v)
			if err != nil {
				return nil, err
			}
			return RunTxn(o, flags, v)
		},
	}
}

// txnOptions reads the scenario's flags.
func txnOptions(v map[string]string) (TxnOptions, error) {
	o := TxnOptions{}
	var err error
	ints := []struct {
		name string
		to   *int
		lo   int
	}{{"txns", &o.Txns, 1}, {"clients", &o.Clients, 1}, {"keys", &o.Keys, 1}, {"writes-per-key", &o.WritesPerKey, 1}, {"max-length", &o.MaxLength, 1}}
	for _, f := range ints {
		if *f.to, err = parseInt(f.name, v[f.name], f.lo, 10_000_000); err != nil {
			return o, err
		}
	}
	for name, to := range map[string]*float64{"fail-rate": &o.FailRate, "crash-rate": &o.CrashRate} {
		if *to, err = strconv.ParseFloat(v[name], 64); err != nil || *to < 0 || *to >= 1 {
			return o, fmt.Errorf("%s: want a number in [0, 1), got %q", name, v[name])
		}
	}
	if o.Isolation, err = parseChoice("isolation", v["isolation"], Isolations...); err != nil {
		return o, err
	}
	w, err := parseChoice("workload", v["workload"], "list-append", "rw-register")
	if err != nil {
		return o, err
	}
	o.Registers = w == "rw-register"
	o.Seed, err = parseSeed(v["seed"])
	return o, err
}

// RunTxn runs the store and checks its history at each level of the
// ladder: the table gives the run's counts and, per level, the verdict and
// the anomalies that rule it out.
func RunTxn(o TxnOptions, flags []Flag, v map[string]string) (*Output, error) {
	h, err := Txns(o)
	if err != nil {
		return nil, err
	}
	w, workload := elle.ListAppend, "list-append"
	if o.Registers {
		w, workload = elle.RWRegister, "rw-register"
	}
	a, err := elle.Analyze(context.Background(), h, w, 0)
	if err != nil {
		return nil, fmt.Errorf("txn history: %w", err)
	}
	c := h.Counts()
	table := mdTable([]string{"transactions", "committed", "failed", "crashed", "isolation", "workload"},
		[][]string{{fmt.Sprint(len(h.Ops)), fmt.Sprint(c.OK), fmt.Sprint(c.Fail), fmt.Sprint(c.Info), o.Isolation, workload}})
	var rows [][]string
	var held, broken []string
	all := checker.True
	for _, level := range txnLadder {
		r, err := a.Result(h, level)
		if err != nil {
			return nil, err
		}
		rows = append(rows, []string{level, r.Valid.String(), anomalyCounts(r.Violations)})
		switch r.Valid {
		case checker.True:
			held = append(held, level)
		case checker.False:
			broken = append(broken, level+" "+firstAnomalies(r.Violations))
			all = checker.False
		}
	}
	table += "\n" + mdTable([]string{"level", "verdict", "anomalies"}, rows)
	shows := txnMechanism[o.Isolation] + " " + txnSummary(held, broken)
	expect := verdictOf(all == checker.True)
	return &Output{Table: closingWith(table, shows, "txn", flags, v, expect, "-c all"), History: h, Model: workload,
		Expect: expect, Criterion: elle.StrictSerializable}, nil
}

// txnSummary is the sentence that places the run on the ladder.
func txnSummary(held, broken []string) string {
	switch {
	case len(broken) == 0:
		return "Every level holds, strict serializability included."
	case len(held) == 0:
		return "No level holds: " + strings.Join(broken, "; ") + "."
	}
	return fmt.Sprintf("%s is the strongest level that holds; %s.", held[0], strings.Join(broken, "; "))
}

// anomalyCounts writes each anomaly's name with how often it was found.
func anomalyCounts(vs []checker.Violation) string {
	n := map[string]int{}
	var names []string
	for _, v := range vs {
		if n[v.Pattern] == 0 {
			names = append(names, v.Pattern)
		}
		n[v.Pattern]++
	}
	if len(names) == 0 {
		return "–"
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name
		if n[name] > 1 {
			parts[i] += " ×" + strconv.Itoa(n[name])
		}
	}
	return strings.Join(parts, ", ")
}

// firstAnomalies names the kinds of anomaly that rule a level out.
func firstAnomalies(vs []checker.Violation) string {
	seen := map[string]bool{}
	var names []string
	for _, v := range vs {
		if !seen[v.Pattern] {
			seen[v.Pattern] = true
			names = append(names, v.Pattern)
		}
	}
	sort.Strings(names)
	return "fails with " + strings.Join(names, ", ")
}
