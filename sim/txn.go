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
	IsoLostUpdate: "The serializable store, and on keys of their own two concurrent transactions that read a key's initial state and both write it: " +
		"a lost update, which snapshot isolation rules out and causal consistency allows.",
	IsoWriteSkew: "The serializable store, and on keys of their own two concurrent transactions that read two keys' initial state and each write one: " +
		"write skew, which serializability rules out and snapshot isolation allows.",
	IsoFracturedRead: "The serializable store, and on keys of their own a transaction that writes two keys and a later one that sees one write and misses the other: " +
		"a fractured read, which read atomic rules out and read committed allows.",
	IsoCausalViolation: "The serializable store, and on keys of their own a write, a transaction that reads it and writes a second key, and a third that sees the second write and misses the first: " +
		"causal consistency is broken, read atomic holds.",
	IsoLongFork: "The serializable store, and on keys of their own two writes to two keys and two readers that see them in opposite orders: " +
		"a long fork, which prefix consistency and snapshot isolation rule out and parallel snapshot isolation and causal consistency allow.",
}

func txnScenario() Scenario {
	flags := []Flag{
		{Name: "isolation", Default: IsoSerializable, Usage: "the store's isolation: " + strings.Join(Isolations, ", ")},
		{Name: "workload", Default: "list-append", Usage: "list-append, rw-register, or tpcc (a TPC-C-like mix of rw-register transactions)"},
		{Name: "txns", Default: "1000", Usage: "number of transactions"},
		{Name: "clients", Default: "5", Usage: "concurrent clients (sessions), each running one transaction at a time"},
		{Name: "keys", Default: "3", Usage: "keys in use at a time"},
		{Name: "writes-per-key", Default: "8", Usage: "writes a key takes before a fresh one replaces it (0: keys never retire)"},
		{Name: "max-length", Default: "4", Usage: "most micro-operations per transaction"},
		{Name: "ops", Default: "0", Usage: "micro-operations in every transaction (0: 1 to --max-length at random)"},
		{Name: "read-ratio", Default: "0.5", Usage: "probability that a micro-operation reads"},
		{Name: "zipf", Default: "0", Usage: "Zipf exponent of the key distribution, the first keys hot (0: uniform)"},
		{Name: "warehouses", Default: "1", Usage: "warehouses of the tpcc workload"},
		{Name: "anomalies", Default: "1", Usage: "anomalies a store that breaks a level on purpose adds"},
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
	}{{"txns", &o.Txns, 1}, {"clients", &o.Clients, 1}, {"keys", &o.Keys, 1}, {"writes-per-key", &o.WritesPerKey, 0}, {"max-length", &o.MaxLength, 1},
		{"ops", &o.Ops, 0}, {"warehouses", &o.Warehouses, 1}, {"anomalies", &o.Anomalies, 0}}
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
	if o.ReadRatio, err = strconv.ParseFloat(v["read-ratio"], 64); err != nil || o.ReadRatio <= 0 || o.ReadRatio > 1 {
		return o, fmt.Errorf("read-ratio: want a number in (0, 1], got %q", v["read-ratio"])
	}
	if o.Zipf, err = strconv.ParseFloat(v["zipf"], 64); err != nil || o.Zipf < 0 || o.Zipf > 10 {
		return o, fmt.Errorf("zipf: want an exponent from 0 (uniform) to 10, got %q", v["zipf"])
	}
	if o.Isolation, err = parseChoice("isolation", v["isolation"], Isolations...); err != nil {
		return o, err
	}
	w, err := parseChoice("workload", v["workload"], "list-append", "rw-register", "tpcc")
	if err != nil {
		return o, err
	}
	o.Registers, o.TPCC = w != "list-append", w == "tpcc"
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
	switch {
	case o.TPCC:
		workload = "tpcc"
	case o.Registers:
		workload = "rw-register"
	}
	c := h.Counts()
	table := mdTable([]string{"transactions", "committed", "failed", "crashed", "isolation", "workload"},
		[][]string{{fmt.Sprint(len(h.Ops)), fmt.Sprint(c.OK), fmt.Sprint(c.Fail), fmt.Sprint(c.Info), o.Isolation, workload}})
	shows := txnMechanism[o.Isolation] + " " + txnShows[o.Isolation]
	expect := verdictOf(o.Isolation == IsoSerializable)
	model := "list-append"
	if o.Registers {
		model = "rw-register"
	}
	return &Output{Table: closingWith(table, shows, "txn", flags, v, expect, "-c all"), History: h, Model: model,
		Expect: expect, Criterion: elle.StrictSerializable}, nil
}

// txnShows says, per isolation level, what checking the history at every
// level shows on the default run.
var txnShows = map[string]string{
	IsoSerializable:    "Every level holds, strict serializability included.",
	IsoSnapshot:        "Snapshot isolation holds; serializable and repeatable read fail with G2-item (write skew).",
	IsoReadCommitted:   "Read committed holds; snapshot isolation and repeatable read fail with lost-update.",
	IsoBroken:          "Read committed fails with G1a (aborted reads); list-append histories also show G0.",
	IsoLostUpdate:      "Snapshot isolation and repeatable read fail with lost-update; read committed holds.",
	IsoWriteSkew:       "Serializable and repeatable read fail with G2-item (write skew); snapshot isolation holds.",
	IsoFracturedRead:   "Monotonic atomic view fails with fractured-read, and snapshot isolation with G-single-item; read committed holds.",
	IsoCausalViolation: "Snapshot isolation fails with G-single-item; monotonic atomic view holds. Causal consistency, which Elle's levels do not name, is broken too.",
	IsoLongFork:        "Snapshot isolation fails with G-nonadjacent-item (a long fork); monotonic atomic view and parallel snapshot isolation hold.",
}
