// Package sim reproduces the small deterministic simulations histcheck is
// built around (partitions, replica lag, lock queues, leases, fencing,
// Redis locks, PACELC) and a random workload generator. Each scenario gives
// its table, figure for figure, and the history it stands for, ready to be
// checked.
package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Flag is a setting a scenario takes, as a command-line flag would carry it.
type Flag struct {
	Name    string // without dashes
	Default string
	Usage   string
}

// Params are flag values by name; a flag that is absent takes its default.
type Params map[string]string

// Output is what running a scenario gives: its table, and the history it
// stands for with the model and options to check it against. Model is one
// model name, or KEY=MODEL pairs when the history's keys hold objects of
// different kinds (a lock and the storage it guards); the history's Meta
// carries the same settings, so that "histcheck check" needs no flags.
type Output struct {
	Table   string
	History *history.History
	Model   string
	Options model.Options
	// Expect is the verdict "histcheck check" gives the history with its
	// own settings and the criteria the table's closing command names:
	// "true" or "false".
	Expect string
	// Plain is the verdict of "histcheck check FILE" with no flags at all,
	// when it differs from Expect ("" when it is the same).
	Plain string
	// Criterion is what "histcheck check FILE" with no flags checks the
	// history for: "" is linearizable; a transactional history's is
	// strict-serializable.
	Criterion string
}

// Scenario is one simulation as a command would dispatch it.
type Scenario struct {
	Name        string
	Description string
	Flags       []Flag
	// Run runs the scenario with the given flag values. Unknown flag names
	// and malformed values are errors.
	Run func(Params) (*Output, error)
}

// Scenarios returns every scenario, in the order the chapters tell them.
// The lock design review needs a checker to fill its matrix; without one
// (see ScenariosWith) it reports an error when run.
func Scenarios() []Scenario { return ScenariosWith(nil) }

// ScenariosWith is Scenarios with the checker the lock design review uses.
func ScenariosWith(check Checker) []Scenario {
	return []Scenario{
		partitionScenario(),
		lagScenario(),
		lockQueueScenario(),
		fencingScenario(),
		leaseTTLScenario(),
		redisLockScenario(),
		redlockScenario(),
		pacelcScenario(),
		electionScenario(),
		checkThenWriteScenario(),
		setnxScenario(),
		failoverScenario(),
		quorumScenario(),
		eventualScenario(check),
		lockDesignsScenario(check),
		txnScenario(),
		randomScenario(),
	}
}

// Lookup returns the scenario with the given name.
func Lookup(name string) (Scenario, bool) { return LookupWith(name, nil) }

// LookupWith is Lookup among ScenariosWith(check).
func LookupWith(name string, check Checker) (Scenario, bool) {
	for _, s := range ScenariosWith(check) {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// flagValues resolves p against the scenario's flags: defaults for absent
// ones, an error naming the known flags for unknown ones.
func flagValues(flags []Flag, p Params) (map[string]string, error) {
	out := make(map[string]string, len(flags))
	for _, f := range flags {
		out[f.Name] = f.Default
	}
	names := make([]string, 0, len(p))
	for name := range p {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := out[name]; !ok {
			known := make([]string, len(flags))
			for i, f := range flags {
				known[i] = f.Name
			}
			return nil, fmt.Errorf("unknown flag %q (this scenario takes %s)", name, strings.Join(known, ", "))
		}
		out[name] = p[name]
	}
	return out, nil
}

func parseSeed(s string) (uint32, error) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("seed: want an integer from 0 to %d, got %q", uint32(1<<32-1), s)
	}
	return uint32(n), nil
}

func parseInt(name, s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("%s: want an integer from %d to %d, got %q", name, lo, hi, s)
	}
	return n, nil
}

func parseChoice(name, s string, choices ...string) (string, error) {
	for _, c := range choices {
		if s == c {
			return s, nil
		}
	}
	return "", fmt.Errorf("%s: want one of %s, got %q", name, strings.Join(choices, ", "), s)
}

// mdTable renders a Markdown table, the layout the chapters use.
func mdTable(header []string, rows [][]string) string {
	var sb strings.Builder
	line := func(cells []string) {
		sb.WriteString("| ")
		sb.WriteString(strings.Join(cells, " | "))
		sb.WriteString(" |\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return sb.String()
}

// thousands writes n with comma separators, as the chapters print counts.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var sb strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if neg {
		return "-" + sb.String()
	}
	return sb.String()
}

// build validates ops into a history and records the settings that make it
// self-describing.
func build(what string, ops []history.Op, meta map[string]history.Value) (*history.History, error) {
	h, err := history.FromOps(ops)
	if err != nil {
		return nil, fmt.Errorf("%s history: %w", what, err)
	}
	for i := range h.Ops {
		h.Ops[i].Index = int64(i)
	}
	if len(meta) > 0 {
		h.Meta = meta
	}
	return h, nil
}

// metaFor is the Meta of a history meant for one model; times are in
// milliseconds throughout.
func metaFor(modelName string, init history.Value) map[string]history.Value {
	m := map[string]history.Value{"time_unit": history.StringValue("ms")}
	if modelName != "" {
		m["model"] = history.StringValue(modelName)
	}
	if !init.IsNone() {
		m["init"] = init
	}
	return m
}

// metaTTL is metaFor with a lease length (ms) as well.
func metaTTL(modelName string, init history.Value, ttl int64) map[string]history.Value {
	m := metaFor(modelName, init)
	if ttl > 0 {
		m["ttl"] = history.IntValue(ttl)
	}
	return m
}

// op builds a completed operation; tests and scenarios fill in the rest.
func op(client, f string, key, value history.Value, call, ret int64, st history.Type) history.Op {
	return history.Op{Client: client, F: f, Key: key, Value: value, Call: call, Return: ret, Status: st}
}

// emitFile is the file name the closing lines of a table suggest for the
// history.
func emitFile(name string) string { return name + ".json" }

// CheckCommand is the shell command that emits the history of a scenario
// run with the given flag values and checks it with the settings the
// history carries. Every flag is written out, so the command names the run
// exactly.
func CheckCommand(name string, flags []Flag, v map[string]string) string {
	return checkCommandWith(name, flags, v, "")
}

// checkCommandWith is CheckCommand with arguments for "histcheck check"
// (criteria), or none.
func checkCommandWith(name string, flags []Flag, v map[string]string, checkArgs string) string {
	var sb strings.Builder
	sb.WriteString("histcheck sim " + name)
	for _, f := range flags {
		sb.WriteString(" --" + f.Name + " " + shellQuote(v[f.Name]))
	}
	file := emitFile(name)
	sb.WriteString(" --emit history -o " + file + " && histcheck check ")
	if checkArgs != "" {
		sb.WriteString(checkArgs + " ")
	}
	sb.WriteString(file)
	return sb.String()
}

// shellQuote quotes s for a POSIX shell unless it needs no quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !shellSafe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellSafe reports whether r needs no quoting in a POSIX shell word.
func shellSafe(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(",._-+:/=", r)
}

// closing ends a table with what it shows (two or three sentences) and the
// command that checks the history behind it, with the verdict to expect.
func closing(table, shows string, name string, flags []Flag, v map[string]string, expect string) string {
	return closingWith(table, shows, name, flags, v, expect, "")
}

// closingWith is closing with arguments for "histcheck check".
func closingWith(table, shows string, name string, flags []Flag, v map[string]string, expect, checkArgs string) string {
	exit := "exit 0"
	if expect == "false" {
		exit = "exit 1"
	}
	return strings.TrimRight(table, "\n") + "\n\n" + shows + "\n\nCheck the history behind this table (verdict " + expect + ", " + exit + "):\n\n    " +
		checkCommandWith(name, flags, v, checkArgs) + "\n"
}
