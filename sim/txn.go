package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker/elle"
)

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

// RunTxn runs the store and returns its history, with a table of the
// run's counts and what checking it shows: the store keeps its level by
// construction (the tests check each level's verdicts and anomalies), and
// the table ends with the command that checks the history at every level.
func RunTxn(o TxnOptions, flags []Flag, v map[string]string) (*Output, error) {
	h, err := Txns(o)
	if err != nil {
		return nil, err
	}
	workload := "list-append"
	if o.Registers {
		workload = "rw-register"
	}
	c := h.Counts()
	table := mdTable([]string{"transactions", "committed", "failed", "crashed", "isolation", "workload"},
		[][]string{{fmt.Sprint(len(h.Ops)), fmt.Sprint(c.OK), fmt.Sprint(c.Fail), fmt.Sprint(c.Info), o.Isolation, workload}})
	shows := txnMechanism[o.Isolation] + " " + txnShows[o.Isolation]
	expect := verdictOf(o.Isolation == IsoSerializable)
	return &Output{Table: closingWith(table, shows, "txn", flags, v, expect, "-c all"), History: h, Model: workload,
		Expect: expect, Criterion: elle.StrictSerializable}, nil
}

// txnShows says, per isolation level, what checking the history at every
// level shows on the default run.
var txnShows = map[string]string{
	IsoSerializable:  "Every level holds, strict serializability included.",
	IsoSnapshot:      "Snapshot isolation holds; serializable and repeatable read fail with G2-item (write skew).",
	IsoReadCommitted: "Read committed holds; snapshot isolation and repeatable read fail with lost-update.",
	IsoBroken:        "Read committed fails with G1a (aborted reads); list-append histories also show G0.",
}
