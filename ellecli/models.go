package ellecli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker/jepsen"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// target is what one of elle-cli's models is in histcheck.
type target struct {
	// model is histcheck's model; "" for elle-cli's experimental
	// checkers, which histcheck has no counterpart for.
	model string
	// txn marks Elle's models, which take the consistency models, the
	// anomalies and the directory.
	txn bool
	// knossos marks Knossos's cas-register: it starts at nil, and a read
	// of nil is accepted in any state, as Knossos judges it.
	knossos bool
	// jepsen marks Jepsen's checkers.
	jepsen bool
}

// targets maps elle-cli's model names to histcheck's.
var targets = map[string]target{
	"cas-register": {model: "cas-register", knossos: true},
	"mutex":        {model: "mutex"},
	"rw-register":  {model: "rw-register", txn: true},
	"list-append":  {model: "list-append", txn: true},
	"counter":      {model: "jepsen-counter", jepsen: true},
	"set":          {model: "jepsen-set", jepsen: true},
	"set-full":     {model: "set-full", jepsen: true},
	"bank":         {model: "bank", jepsen: true},
	"long-fork":    {model: "long-fork", jepsen: true},
	"comments":     {},
	"sequential":   {},
}

// checkedNames are elle-cli's model names histcheck checks, sorted: all
// but its experimental checkers.
func checkedNames() []string {
	var out []string
	for _, n := range modelNames() {
		if targets[n].model != "" {
			out = append(out, n)
		}
	}
	return out
}

// modelNames are every model name elle-cli accepts, sorted.
func modelNames() []string {
	names := make([]string, 0, len(targets))
	for n := range targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// alias is a consistency model elle-cli accepts that histcheck checks as
// one of its levels, with anomalies the level does not rule out itself.
type alias struct {
	level     string
	anomalies []string
}

// aliases are Elle's other consistency models, each checked as the
// strongest of histcheck's levels it implies, plus the anomalies Elle
// says it rules out on top (Elle's consistency_model.clj). The anomalies
// histcheck does not look for (G-cursor, G-monotonic, G-MSR, G-update,
// G-SIb) are left out, so these are checked as slightly weaker models.
var aliases = map[string]alias{
	"strong-serializable":     {level: elle.StrictSerializable},
	"conflict-serializable":   {level: elle.Serializable},
	"consistent-view":         {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"forward-consistent-view": {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"update-serializable":     {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"monotonic-view":          {level: elle.ReadCommitted},
	"monotonic-snapshot-read": {level: elle.ReadCommitted},
	// Adya's names for the levels, as Elle accepts them.
	"PL-1": {level: elle.ReadUncommitted}, "PL-2": {level: elle.ReadCommitted},
	"PL-2.99": {level: elle.RepeatableRead}, "PL-3": {level: elle.Serializable},
	"PL-SI": {level: elle.SnapshotIsolation}, "PL-SS": {level: elle.StrictSerializable},
	"PL-CS": {level: elle.CursorStability}, "PL-2+": {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"PL-FCV": {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"PL-3U":  {level: elle.CursorStability, anomalies: []string{"G-single"}},
	"PL-2L":  {level: elle.ReadCommitted}, "PL-MSR": {level: elle.ReadCommitted},
	"view-serializable": {level: elle.ReadUncommitted}, "1SR": {level: elle.ReadUncommitted},
	"session-serializable": {level: elle.ReadUncommitted},
	// Cerone's models: Elle rules out internal and aborted reads (and,
	// for read atomic, future reads) in them.
	"causal-cerone":               {anomalies: []string{"internal", "G1a"}},
	"parallel-snapshot-isolation": {anomalies: []string{"internal", "G1a"}},
	"prefix":                      {anomalies: []string{"internal", "G1a"}},
	"read-atomic":                 {level: elle.MonotonicAtomicView, anomalies: []string{"internal", "G1a", "future-read"}},
	"update-atomic":               {level: elle.MonotonicAtomicView, anomalies: []string{"internal", "G1a", "future-read"}},
	// Elle's single-object models rule out no anomaly of a transactional
	// history by themselves.
	"linearizable": {}, "sequential": {}, "causal": {}, "PRAM": {},
	"writes-follow-reads": {}, "monotonic-reads": {}, "monotonic-writes": {}, "read-your-writes": {},
}

// unsearched are anomalies elle-cli accepts that histcheck does not look
// for: asking for them warns, and they are left out.
var unsearched = []string{"GSI", "GSIa", "GSIb", "G-cursor", "G-monotonic", "G-MSR", "G-update"}

// nodesPerMS turns --cycle-search-timeout into the cycle search's budget
// of nodes: elle-cli's default, 1000 ms, is histcheck's default budget.
const nodesPerMS = elle.DefaultBudget / 1000

// planned is what the flags ask of every file.
type planned struct {
	target
	name     string // elle-cli's model name
	models   []suite.Model
	criteria []string
	anoms    []string
	limits   check.Limits
	// options are the Jepsen checkers' options (jepsen.Opt*), NAME=VALUE.
	options []string
	// nothing is set when neither a consistency model nor an anomaly is
	// asked for: Elle then reports nothing, and every history is valid.
	nothing  bool
	warnings []string
	// unknownLevels are the consistency models asked for that Elle does
	// not know: elle-cli takes -c as it is, and Elle raises an error when
	// it checks the first history, so each file is refused (255), not the
	// flag (1).
	unknownLevels []string
}

// plan checks the flags and settles what to check. The message, when
// not empty, is elle-cli's complaint about a flag.
func plan(o *options, models []suite.Model) (*planned, string) {
	t, ok := targets[o.model]
	if !ok {
		return nil, fmt.Sprintf("Failed to validate \"--model %s\": Must be one of %s", o.model, strings.Join(modelNames(), ", "))
	}
	switch {
	case o.format != "" && o.format != "edn" && o.format != "json":
		return nil, fmt.Sprintf("Failed to validate \"--format %s\": Must be one of edn, json", o.format)
	case o.output != "text" && o.output != "json":
		return nil, fmt.Sprintf("Failed to validate \"--output %s\": Must be one of text, json", o.output)
	case o.plotFormat != "svg" && o.plotFormat != "png":
		return nil, fmt.Sprintf("Failed to validate \"--plot-format %s\": Must be one of png, svg", o.plotFormat)
	case o.cycleSearchTimeout <= 0:
		return nil, fmt.Sprintf("Failed to validate \"--cycle-search-timeout %d\": Must be more than 0", o.cycleSearchTimeout)
	case o.groupSize < 0:
		return nil, fmt.Sprintf("Failed to validate \"--group-size %d\": Must be 0 or more", o.groupSize)
	}
	p := &planned{target: t, name: o.model, models: models, options: jepsenOptions(o)}
	if t.txn {
		p.limits.CycleBudget = int64(o.cycleSearchTimeout) * nodesPerMS
		if msg := p.txnCriteria(o.consistency, o.anomalies); msg != "" {
			return nil, msg
		}
	}
	return p, ""
}

// txnCriteria maps -c and -a onto histcheck's criteria and anomalies.
func (p *planned) txnCriteria(levels, anomalies string) string {
	var extra []string
	for _, l := range split(levels) {
		if a, ok := aliases[l]; ok {
			if a.level != "" {
				p.criteria = append(p.criteria, a.level)
			}
			extra = append(extra, a.anomalies...)
			continue
		}
		if !slices.Contains(elle.Levels, l) {
			p.unknownLevels = append(p.unknownLevels, l)
			continue
		}
		p.criteria = append(p.criteria, l)
	}
	for _, a := range split(anomalies) {
		if slices.Contains(unsearched, a) {
			p.warnings = append(p.warnings, fmt.Sprintf("histcheck does not look for %s; it is left out", a))
			continue
		}
		extra = append(extra, a)
	}
	as, err := check.ParseAnomalies(strings.Join(extra, ","))
	if err != nil {
		return err.Error()
	}
	if !p.covered(as) {
		p.anoms = as
	}
	p.nothing = len(p.criteria) == 0 && len(p.anoms) == 0 && len(p.unknownLevels) == 0
	return ""
}

// covered reports that every anomaly in as is ruled out by some level
// asked for already, so that looking for them on their own adds nothing
// (elle-cli's default, G0 under strict serializability).
func (p *planned) covered(as []string) bool {
	ruled := map[string]bool{}
	for _, l := range p.criteria {
		ps, _ := elle.Prohibited(l)
		for _, a := range ps {
			ruled[a] = true
		}
	}
	for _, a := range as {
		if !ruled[a] {
			return false
		}
	}
	return true
}

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// mismatchError is a model that does not fit the history: elle-cli says
// so on standard error and exits 1.
type mismatchError struct {
	model string
	err   error
}

func (e *mismatchError) Error() string {
	return fmt.Sprintf("Model %q does not match this history: %v - wrong model selected?", e.model, e.err)
}

// caughtError is a history one of Jepsen's checkers throws an exception
// on: elle-cli runs them under Jepsen's check-safe, which logs the error
// and answers unknown, so the file's verdict is unknown and the others
// are still checked.
type caughtError struct{ err error }

func (e *caughtError) Error() string { return e.err.Error() }
func (e *caughtError) Unwrap() error { return e.err }

// raisedError is a history Elle refuses with an error, or one whose values
// Jepsen's counter checker asserts against: elle-cli does not catch
// either, and prints an empty line, the error on standard error, and
// exits 255.
type raisedError struct{ err error }

// Error is Elle's message when histcheck knows it, then histcheck's.
func (e *raisedError) Error() string {
	var re *elle.RefusedError
	if errors.As(e.err, &re) {
		return fmt.Sprintf("%s (%s: %v)", re.Elle, re.Type, re.Err)
	}
	return e.err.Error()
}

func (e *raisedError) Unwrap() error { return e.err }

// unknownLevelsError is Elle's error for consistency models it does not
// know (consistency_model.clj's validate-models), in Elle's words, with
// the names accepted.
type unknownLevelsError struct{ names []string }

func (e *unknownLevelsError) Error() string {
	kws := make([]string, len(e.names))
	for i, n := range e.names {
		kws[i] = ":" + n
	}
	accepted := slices.Clone(elle.Levels)
	for a := range aliases {
		accepted = append(accepted, a)
	}
	sort.Strings(accepted)
	return "Unknown consistency model (" + strings.Join(kws, " ") + "); known models are: " + strings.Join(accepted, ", ")
}

// check checks one history as planned.
func (p *planned) check(ctx context.Context, h *history.History, file string, events bool) (check.Outcome, error) {
	if p.model == "" {
		return check.Outcome{}, fmt.Errorf("elle-cli's experimental %s checker has no histcheck counterpart", p.name)
	}
	if !p.known() {
		return check.Outcome{}, fmt.Errorf("unknown model %q: this histcheck has no model for elle-cli's %s", p.model, p.name)
	}
	if len(p.unknownLevels) > 0 {
		return check.Outcome{}, &raisedError{err: &unknownLevelsError{names: p.unknownLevels}}
	}
	if p.nothing {
		return check.Outcome{Settled: true, Model: p.model}, nil
	}
	req := check.Request{Name: file, Model: p.model, Models: p.models, Criteria: p.criteria, Anomalies: p.anoms,
		EventTimes: events, Limits: p.limits, NoCore: true, ModelOptions: p.options, ElleOnly: true}
	if p.knossos {
		req.Init, req.NilRead = history.NilValue, "any"
	}
	out, err := check.Run(ctx, h, req)
	if err == nil {
		return out, nil
	}
	var ie *suite.InternalError
	var we *suite.WitnessError
	if out.Internal || errors.As(err, &ie) || errors.As(err, &we) {
		return out, fmt.Errorf("checking %s: %w", history.Quote(file), err)
	}
	var re *jepsen.RefusedError
	if errors.As(err, &re) {
		named(file, err)
		if re.Assertion {
			// Jepsen's checker fails an assertion, an error elle-cli
			// does not catch: it exits 255, as on Elle's errors.
			return out, &raisedError{err: err}
		}
		// Jepsen's check-safe turns the checker's exception into
		// :valid? :unknown, and elle-cli prints that verdict.
		return out, &caughtError{err: err}
	}
	if p.txn {
		// Elle raises an error on every history its checkers refuse (a
		// value appended twice, a micro-operation it does not know), and
		// elle-cli exits 255 on it.
		return out, &raisedError{err: err}
	}
	// The model or its settings do not fit the history's operations.
	return out, &mismatchError{model: p.name, err: err}
}

// known reports that the model is among the ones to check with.
func (p *planned) known() bool {
	for _, m := range p.models {
		if m.Info.Name == p.model {
			return true
		}
	}
	return false
}

// jepsenOptions passes the bank's and long-fork's flags on to the models
// that take them, as elle-cli passes them to Jepsen's checkers.
func jepsenOptions(o *options) []string {
	var out []string
	switch o.model {
	case "bank":
		if o.negativeBalances {
			out = append(out, jepsen.OptNegativeBalances+"=true")
		}
		if o.totalAmountSet {
			out = append(out, fmt.Sprintf("%s=%d", jepsen.OptTotalAmount, o.totalAmount))
		}
		if o.maxTransferSet {
			out = append(out, fmt.Sprintf("%s=%d", jepsen.OptMaxTransfer, o.maxTransfer))
		}
	case "long-fork":
		if o.groupSize > 0 {
			out = append(out, fmt.Sprintf("%s=%d", jepsen.OptGroupSize, o.groupSize))
		}
	}
	return out
}
