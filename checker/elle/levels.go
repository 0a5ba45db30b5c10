package elle

import "sort"

// The isolation levels histcheck checks, named as Elle names them.
const (
	ReadUncommitted                 = "read-uncommitted"
	ReadCommitted                   = "read-committed"
	MonotonicAtomicView             = "monotonic-atomic-view"
	CursorStability                 = "cursor-stability"
	RepeatableRead                  = "repeatable-read"
	SnapshotIsolation               = "snapshot-isolation"
	Serializable                    = "serializable"
	StrongSessionReadUncommitted    = "strong-session-read-uncommitted"
	StrongSessionReadCommitted      = "strong-session-read-committed"
	StrongReadUncommitted           = "strong-read-uncommitted"
	StrongReadCommitted             = "strong-read-committed"
	StrongSessionSnapshotIsolation  = "strong-session-snapshot-isolation"
	StrongSnapshotIsolation         = "strong-snapshot-isolation"
	StrongSessionSerializable       = "strong-session-serializable"
	StrictSerializable              = "strict-serializable"
	defaultLevel                    = StrictSerializable
	cycleSearchTimeout              = "cycle-search-timeout"
	nonadjacentUnsearchedSuffixNote = "the search for G-nonadjacent cycles ran out of its budget"
)

// Levels lists the isolation levels, strongest first.
var Levels = []string{StrictSerializable, StrongSessionSerializable, Serializable, StrongSnapshotIsolation,
	StrongSessionSnapshotIsolation, SnapshotIsolation, RepeatableRead, CursorStability, MonotonicAtomicView,
	StrongReadCommitted, StrongSessionReadCommitted, ReadCommitted, StrongReadUncommitted,
	StrongSessionReadUncommitted, ReadUncommitted}

// Implies lists, per level, the levels every history that satisfies it
// satisfies too (directly), after Elle's consistency_model.clj restricted
// to the levels above.
var Implies = map[string][]string{
	StrictSerializable:             {Serializable, StrongSnapshotIsolation, StrongSessionSerializable},
	StrongSessionSerializable:      {Serializable, StrongSessionSnapshotIsolation},
	Serializable:                   {RepeatableRead, SnapshotIsolation},
	StrongSnapshotIsolation:        {StrongSessionSnapshotIsolation, StrongReadCommitted},
	StrongSessionSnapshotIsolation: {SnapshotIsolation, StrongSessionReadCommitted},
	SnapshotIsolation:              {MonotonicAtomicView},
	RepeatableRead:                 {CursorStability, MonotonicAtomicView},
	CursorStability:                {ReadCommitted},
	MonotonicAtomicView:            {ReadCommitted},
	StrongReadCommitted:            {StrongSessionReadCommitted, StrongReadUncommitted},
	StrongSessionReadCommitted:     {ReadCommitted, StrongSessionReadUncommitted},
	ReadCommitted:                  {ReadUncommitted},
	StrongReadUncommitted:          {StrongSessionReadUncommitted},
	StrongSessionReadUncommitted:   {ReadUncommitted},
}

// proscribes lists the anomalies each level rules out itself, beyond
// those of the levels it implies (Elle's direct-proscribed-anomalies).
// Snapshot isolation also rules out lost-update here: two committed
// transactions that read one version of a key and both wrote it cannot
// both have seen the other, which snapshot isolation's first committer
// wins forbids (Elle leaves lost-update to repeatable read and cursor
// stability).
var proscribes = map[string][]string{
	ReadUncommitted:                {"G0", "duplicate-elements", "cyclic-versions"},
	ReadCommitted:                  {"G1"},
	CursorStability:                {"G1", "lost-update"},
	MonotonicAtomicView:            {"fractured-read"}, // Elle names nothing it adds to read committed
	RepeatableRead:                 {"G1", "G2-item", "lost-update"},
	SnapshotIsolation:              {"internal", "G1", "G-nonadjacent", "lost-update"},
	Serializable:                   {"internal", "G1", "G2"},
	StrongSessionReadUncommitted:   {"G0-process"},
	StrongSessionReadCommitted:     {"G1c-process"},
	StrongReadUncommitted:          {"G0-realtime"},
	StrongReadCommitted:            {"G1c-realtime"},
	StrongSessionSnapshotIsolation: {"internal", "G1-process", "G-nonadjacent-process"},
	StrongSnapshotIsolation:        {"internal", "G1-realtime", "G-nonadjacent-realtime"},
	StrongSessionSerializable:      {"G1-process", "G2-process"},
	StrictSerializable:             {"G1", "G1c-realtime", "G2-realtime"},
}

// impliedAnomalies says which anomalies each anomaly is an instance of
// (Elle's implied-anomalies).
var impliedAnomalies = map[string][]string{
	"G0":                          {"G1c", "G0-process"},
	"G0-process":                  {"G1c-process", "G0-realtime"},
	"G0-realtime":                 {"G1c-realtime"},
	"G1a":                         {"G1"},
	"G1b":                         {"G1"},
	"G1c":                         {"G1", "G1c-process"},
	"G1c-process":                 {"G1c-realtime", "G1-process"},
	"G1c-realtime":                {"G1-realtime"},
	"G1":                          {"G1-process"},
	"G1-process":                  {"G1-realtime"},
	"G-single-item":               {"G-single", "G-single-item-process", "G-nonadjacent-item"},
	"G-single-item-process":       {"G-single-process", "G-single-item-realtime", "G-nonadjacent-item-process"},
	"G-single-item-realtime":      {"G-single-realtime", "G-nonadjacent-item-realtime"},
	"G-single":                    {"G-nonadjacent", "G-single-process"},
	"G-single-process":            {"G-nonadjacent-process", "G-single-realtime"},
	"G-single-realtime":           {"G-nonadjacent-realtime"},
	"G-nonadjacent-item":          {"G-nonadjacent", "G2-item", "G-nonadjacent-item-process"},
	"G-nonadjacent-item-process":  {"G-nonadjacent-process", "G2-item-process", "G-nonadjacent-item-realtime"},
	"G-nonadjacent-item-realtime": {"G2-item-realtime", "G-nonadjacent-realtime"},
	"G-nonadjacent":               {"G2", "G-nonadjacent-process"},
	"G-nonadjacent-process":       {"G2-process", "G-nonadjacent-realtime"},
	"G-nonadjacent-realtime":      {"G2-realtime"},
	"G2":                          {"G2-process"},
	"G2-item":                     {"G2", "G2-item-process"},
	"G2-item-process":             {"G2-process", "G2-item-realtime"},
	"G2-item-realtime":            {"G2-realtime"},
	"G2-process":                  {"G2-realtime"},
	"incompatible-order":          {"G1a"},
	"future-read":                 {"G1c"},
	"dirty-update":                {"G1a"},
	"lost-update":                 {"G2-item"},
}

// closure follows next from each of start, start included.
func closure(next map[string][]string, start ...string) map[string]bool {
	out := map[string]bool{}
	stack := append([]string(nil), start...)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if out[x] {
			continue
		}
		out[x] = true
		stack = append(stack, next[x]...)
	}
	return out
}

// Prohibited lists every anomaly a history satisfying level cannot have,
// sorted. The second result is false for an unknown level.
func Prohibited(level string) ([]string, bool) {
	if _, ok := proscribes[level]; !ok {
		return nil, false
	}
	direct := map[string]bool{}
	for l := range closure(Implies, level) {
		for _, a := range proscribes[l] {
			direct[a] = true
		}
	}
	var out []string
	for a := range impliedAnomalies {
		if !direct[a] && anyImplies(a, direct) {
			direct[a] = true
		}
	}
	for a := range direct {
		out = append(out, a)
	}
	sort.Strings(out)
	return out, true
}

func anyImplies(a string, targets map[string]bool) bool {
	for x := range closure(impliedAnomalies, a) {
		if targets[x] {
			return true
		}
	}
	return false
}

// instanceOf reports whether anomaly a is one of those in ps or an
// instance of one: whether it rules out a level that prohibits ps.
func instanceOf(a string, ps []string) bool {
	for x := range closure(impliedAnomalies, a) {
		for _, p := range ps {
			if p == x {
				return true
			}
		}
	}
	return false
}

// AnomaliesCriterion names the verdict on the anomalies asked for by name
// (ResultAnomalies) in reports.
const AnomaliesCriterion = "anomalies"

// Anomalies lists, sorted, the anomalies that can be asked for by name:
// every anomaly the analysis reports, with the classes they are instances
// of (G1, G2, G-single, …, and their -process and -realtime variants),
// named as Elle names them.
var Anomalies = func() []string {
	set := map[string]bool{"G1a": true, "G1b": true, "internal": true, "duplicate-elements": true, "cyclic-versions": true}
	for a, is := range impliedAnomalies {
		set[a] = true
		for _, x := range is {
			set[x] = true
		}
	}
	for _, ps := range proscribes {
		for _, x := range ps {
			set[x] = true
		}
	}
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}()
