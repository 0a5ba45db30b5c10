package report

import "strings"

// definitions say in words what the names the text form uses mean: the
// patterns the checkers find (checker.Violation.Pattern) and the words of
// a core. The text form gives each once, where it first appears.
var definitions = map[string]string{
	"weakened": "kept in the core only as an operation of unknown outcome, which may have taken effect or not; " +
		"the violation needs it to exist, not when it took effect",
	"stale-read":          "a read returned a value that no order lets the register hold at any moment between its call and its return",
	"read-before-write":   "a read returned before the only write of its value was called",
	"overlapping-zones":   "two values must each stay in the register over spans of time that overlap",
	"zone-inside-zone":    "one value must stay in the register over a span of time that holds the only span in which another value read can be there",
	"thin-air-read":       "a read returned a value that no operation wrote and that is not the initial value",
	"version-cycle":       "the versions the operations carry order them in a cycle with the criterion's own order",
	"saturation-cycle":    "each process's order, each read after the write it read, and the orders those force make a cycle",
	"no-sequential-order": "the search for an order that keeps each process's order and the model stopped with no process able to go on",
	"count":               "counting the lock's acquires and releases refutes every order, whatever it is",
	"owners-held":         "several clients each end holding a lock that has one holder at a time",
	"unexplained-output":  "an operation's output is legal after no sequence of the other operations",
	"no-causal-past":      "no causal order of the operations explains every output",
	"no-arbitration":      "no single order of all operations explains every output as the session guarantee asks",
	"no-process-view":     "a process has no order of all operations that keeps each process's order and makes its own outputs legal",
	"ThinAirRead":         "a read returned a value that no write wrote and that is not the initial value",
	"CyclicCO":            "the causal order (each process's order and each read after the write it read) has a cycle",
	"CyclicCF":            "the order in which every process must see the writes, to explain the reads, has a cycle",
	"CyclicHB":            "a process cannot order the operations it has seen, its own and the writes it read",
	"WriteCOInitRead":     "a read returned the initial value although a write of that key precedes it causally",
	"WriteCORead":         "a read returned a write that a newer write, in the read's causal past, had replaced",
	"WriteHBInitRead":     "a read returned the initial value although a write of that key precedes it in its process's view",
	"read-your-writes":    "a process read a value older than one it wrote itself",
	"monotonic-reads":     "a process read a value older than one it had read before",
	"monotonic-writes":    "the writes of one process are seen in another order than it issued them",
	"writes-follow-reads": "a write is seen before a write its process had read before issuing it",
	"pram":                "a process has no view of the writes that keeps every process's own order",
	"G0":                  "write cycle: transactions overwrite each other's writes in a cycle",
	"G1a":                 "aborted read: a transaction read a write of a transaction that failed",
	"G1b":                 "intermediate read: a transaction read a version another overwrote before committing",
	"G1c":                 "circular information flow: a cycle of writes and reads between committed transactions",
	"G-single":            "read skew: a cycle with exactly one anti-dependency (a read of a version another transaction then replaced)",
	"G2-item":             "write skew: a cycle with two or more anti-dependencies",
	"lost-update":         "several transactions read the same version of a key and each then wrote that key",
	"G1":                  "aborted read, intermediate read or circular information flow (G1a, G1b or G1c)",
	"G2":                  "a cycle of dependencies with at least one anti-dependency (a read of a version another transaction then replaced)",
	"G-nonadjacent":       "a cycle with anti-dependencies of which no two are adjacent",
	"internal":            "a transaction read a value its own earlier micro-operations contradict",
	"future-read":         "a transaction read an element it appends only later",
	"duplicate-elements":  "a read holds one element more than once",
	"incompatible-order":  "two reads of a key show its appends in orders no one order of appends gives",
	"dirty-update":        "a transaction appended after an element that a failed transaction appended",
	"fractured-read":      "a transaction saw another's effects in part",
	"cycle-exists":        "the dependency graph has a cycle whose class the search did not determine in its budget",
	"cyclic-versions":     "the versions of a key are ordered in a cycle",
}

// suffixes say what Elle's variants of a cycle's class add: the cycle
// needs an order besides the dependencies, or is over single keys.
var suffixes = []struct{ suffix, words string }{
	{"-realtime", "; real time's order (a transaction that completed before another began) counts as a dependency"},
	{"-process", "; each process's order counts as a dependency"},
	{"-item", ", over dependencies between single keys"},
}

// definition is what term means in words, or "" when it needs none: an
// Elle class's variant ("G-single-item-realtime") is its class's words
// and what each suffix adds.
func definition(term string) string {
	if d, ok := definitions[term]; ok {
		return d
	}
	for _, s := range suffixes {
		if base, ok := strings.CutSuffix(term, s.suffix); ok {
			if d := definition(base); d != "" {
				return d + s.words
			}
		}
	}
	return ""
}
