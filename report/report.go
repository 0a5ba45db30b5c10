// Package report turns checker results into what histcheck prints: a text
// form for people (one tab-separated verdict line per file and criterion,
// then indented detail) and a versioned JSON object for programs. The JSON
// schema is documented in docs/report-json.md; the types below are that
// schema.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Version is the version of the JSON report schema. It changes only when a
// field is removed or changes meaning; new optional fields keep it.
const Version = 1

// Report is the whole outcome of one histcheck run.
type Report struct {
	Version int `json:"version"`
	// Valid combines every result: false if any is false, else "unknown"
	// if any is unknown, else true.
	Valid     checker.Verdict `json:"valid"`
	Reason    string          `json:"reason,omitempty"`
	Histories []History       `json:"histories"`
}

// History is one input file (or standard input, named "-") and its results.
type History struct {
	File  string `json:"file"`
	Model string `json:"model"`
	// Init is the initial value given by --init or the file; absent when the
	// model's own default applies.
	Init json.RawMessage `json:"init,omitempty"`
	// NilRead is how a read of nil was judged: "value" or "any".
	NilRead string `json:"nil_read"`
	// TTL is the lease length the model used (--ttl or the file's ttl), in
	// the history's time unit; absent when none was set. An operation's
	// own ttl field, which wins over it, is among the operation's Fields.
	TTL int64 `json:"ttl,omitempty"`
	// Order is how the operations are ordered in real time: "events"
	// (their events' places in the input; call and return are those
	// places, and each op's recorded times are in its times) or "times"
	// (call and return are the recorded times); "" when the file could
	// not be read. In the JSON form, Model, NilRead and Order are null
	// when "" (not known), as "" is no model, rule or order.
	Order     string   `json:"order"`
	Ops       int      `json:"ops"`
	OK        int      `json:"ok"`
	Failed    int      `json:"failed"`
	Unknown   int      `json:"unknown"`
	Processes int      `json:"processes"`
	Clients   int      `json:"clients"`
	Ignored   int      `json:"ignored"`
	Warnings  []string `json:"warnings,omitempty"`
	// Error says why the file could not be checked (it could not be read,
	// its model or settings are wrong, or its operations break the
	// model's or the transaction checker's rules); each criterion not
	// checked is then unknown, "not checked: " and this reason.
	Error   string   `json:"error,omitempty"`
	Results []Result `json:"results"`
	// Ladder is present when every criterion was checked (-c all).
	Ladder *Ladder `json:"ladder,omitempty"`
	// Keys is present when a history with several keys is not
	// linearizable: how many keys fail on their own, and how many reads on
	// them cannot be placed.
	Keys *KeyCounts `json:"keys,omitempty"`
	// Source is the history itself, for the HTML report's timeline of every
	// operation; it is not part of the JSON form.
	Source *history.History `json:"-"`
	// Annotations are marks a caller adds to the HTML report's timeline,
	// in lanes of their own below the operations' (a library's test, say,
	// marking a leader change); they are not part of the JSON form.
	Annotations []Annotation `json:"-"`
}

// Annotation is a span of the timeline marked by a caller, drawn in the
// HTML report in a lane of its own named Lane (annotations of one Lane
// share it) and listed beside the timeline. Its text is shown as text,
// never as markup; its colours are CSS colours (a colour the browser does
// not understand is left at the page's own).
type Annotation struct {
	Lane string
	// Start and End are times as the history's operations have them
	// (Call and Return); End before Start is taken as Start: an instant.
	Start, End int64
	// Label is drawn on the mark and listed beside the timeline, with
	// Details under it.
	Label, Details string
	// Color is the label's, Background the mark's; "" for the page's.
	Color, Background string
}

// MarshalJSON writes h as its fields say, with Model, NilRead and Order
// null when they are not known (a file that could not be read, a model
// that could not be chosen), rather than "", which reads as a value.
func (h History) MarshalJSON() ([]byte, error) {
	type plain History // without this method
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as JSON writes the rest
	// The fields before plain shadow its own and keep their place first,
	// as in History; plain's other fields follow in their order.
	err := enc.Encode(struct {
		File    string          `json:"file"`
		Model   *string         `json:"model"`
		Init    json.RawMessage `json:"init,omitempty"`
		NilRead *string         `json:"nil_read"`
		TTL     int64           `json:"ttl,omitempty"`
		Order   *string         `json:"order"`
		plain
	}{h.File, known(h.Model), h.Init, known(h.NilRead), h.TTL, known(h.Order), plain(h)})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// known is s, or nil (JSON's null) when s is "".
func known(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Result is the verdict of one criterion on one history, or on one object
// of it when the history's objects are checked each with its own model.
type Result struct {
	Consistency string          `json:"consistency"`
	Valid       checker.Verdict `json:"valid"`
	// Key and Model name the object and its model when the history was
	// checked object by object (--model KEY=MODEL); both are absent when
	// the whole history was checked as one. Key is absent, with Model set,
	// for the operations that carry no key.
	Key   any    `json:"key,omitempty"`
	Model string `json:"model,omitempty"`
	// Witness is the order in which the operations took effect, when the
	// criterion holds and has one.
	Witness []Op `json:"witness,omitempty"`
	// witnessLen is the witness's length when Witness holds only the
	// steps the text form shows (NewHistoryOf with TextOnly); else 0.
	witnessLen int
	// ReadsFrom is, when values repeat and a weak criterion was decided by
	// choosing which write each read read, that choice for each read that
	// had one: a witness when the criterion holds.
	ReadsFrom []ReadFrom `json:"reads_from,omitempty"`
	// Views are, for a weak criterion decided from the model's steps, its
	// witness (checker.Result.Views).
	Views []View `json:"views,omitempty"`
	// Dropped are operations with unknown outcome left out of the witness.
	Dropped    []Op        `json:"dropped,omitempty"`
	Violations []Violation `json:"violations,omitempty"`
	// ImpliedBy names the checked criterion the verdict follows from,
	// when it was derived along the ladder's implications rather than
	// checked (-c all).
	ImpliedBy string `json:"implied_by,omitempty"`
	// Reason says why the verdict is unknown, or how it was reached.
	Reason    string  `json:"reason,omitempty"`
	Method    string  `json:"method,omitempty"`
	ElapsedMS float64 `json:"elapsed_ms"`
	// Stats are the checker's counters, when it kept any.
	Stats *Stats `json:"stats,omitempty"`
	// Jepsen holds the counts of one of Jepsen's own checkers.
	Jepsen *Jepsen `json:"jepsen,omitempty"`
}

// KeyCounts break a failing linearizability check of a keyed history down
// by key. A read is unplaced when its key's operations other than reads
// are linearizable, but not with that read added: it contradicts the key's
// writes by itself, whatever the other reads returned.
type KeyCounts struct {
	// Keys is the number of keys (objects) checked.
	Keys int `json:"keys"`
	// Failed is the number of keys that are not linearizable on their own.
	Failed int `json:"failed"`
	// Reads is the number of completed reads on the failing keys whose
	// other operations are blind writes that pass without any read.
	Reads int `json:"reads"`
	// Unplaced is the number of those reads that cannot be placed.
	Unplaced int `json:"unplaced_reads"`
	// ReadsSkipped is set when the reads of some failing keys were not
	// counted: keys with operations other than blind writes and reads
	// (appends, compare-and-sets), or reads past the count's budget.
	ReadsSkipped bool `json:"reads_skipped,omitempty"`
}

// Stats are counters a checker reports about its work.
type Stats struct {
	// States is the number of configurations the search explored.
	States int64 `json:"states"`
	// MemoSize is the number of entries in the search's memo table.
	MemoSize int64 `json:"memo_size"`
	// Partitions is the number of independent parts the history was
	// split into and checked one by one.
	Partitions int `json:"partitions"`
	// OpsChecked is the number of operations given to the search after
	// pruning.
	OpsChecked int `json:"ops_checked"`
}

// Violation is one reason a criterion fails.
type Violation struct {
	Ops         []Op   `json:"ops"`
	Explanation string `json:"explanation"`
	Pattern     string `json:"pattern,omitempty"`
	Key         string `json:"key,omitempty"`
	// Core is the minimal violating set found from this violation, for
	// linearizability and sequential consistency.
	Core *Core `json:"core,omitempty"`
	// Cycle, for a transactional anomaly that is a cycle, holds its
	// dependencies in order, the last leading back to the first.
	Cycle []Dependency `json:"cycle,omitempty"`
	// Isolation holds, for a violation of an isolation level decided from
	// commit orders, its facts: Plume's and Elle's names for it, the read
	// it turns on, and its cycle of orders.
	Isolation *Isolation `json:"isolation,omitempty"`

	// steps is the longest legal order a search found before the
	// failure, for the HTML report; not part of the JSON form.
	steps *prefixSteps
	// timeline draws the operations a count names, for the text form (a
	// count has no core); not part of the JSON form.
	timeline string
}

// prefixSteps is a search's longest legal order before a failure: the
// operations (positions in History.Source), the model's state after each
// of the last len(states), and the operation that could not follow with
// what the model said about it (stuck is -1 when none is known).
type prefixSteps struct {
	ops    []int
	states []string
	stuck  int
	said   string
}

// newPrefixSteps keeps v's longest legal order, when it has one.
func newPrefixSteps(v *checker.Violation) *prefixSteps {
	if len(v.Prefix) == 0 && len(v.Stuck) == 0 {
		return nil
	}
	s := &prefixSteps{ops: v.Prefix, states: v.States, stuck: -1}
	if len(v.Stuck) > 0 {
		s.stuck, s.said = v.Stuck[0].Op, said(v.Stuck[0], "illegal in state ")
	}
	return s
}

// Dependency is one step of a cycle of transactions: To depends on From.
type Dependency struct {
	// From and To are the transactions' indexes (Op.Index).
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Type is ww, wr, rw, process or realtime.
	Type string `json:"type"`
	// Key and Value are what the dependency is about: the version From
	// wrote (ww, wr) or read (rw; absent for the initial state); Next is
	// what To wrote over it (ww, rw).
	Key   any `json:"key,omitempty"`
	Value any `json:"value,omitempty"`
	Next  any `json:"next,omitempty"`
}

// withNamed is ops followed by those of named not among them, in the
// order named first names them.
func withNamed(ops, named []int) []int {
	seen := make(map[int]bool, len(ops)+len(named))
	out := append([]int(nil), ops...)
	for _, p := range ops {
		seen[p] = true
	}
	for _, p := range named {
		if p >= 0 && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// dependencies converts a cycle's steps about h.
func dependencies(h *history.History, cycle []checker.Dependency) []Dependency {
	var out []Dependency
	for _, d := range cycle {
		if d.From < 0 || d.From >= len(h.Ops) || d.To < 0 || d.To >= len(h.Ops) {
			continue
		}
		dep := Dependency{From: h.Ops[d.From].Index, To: h.Ops[d.To].Index, Type: d.Type}
		for _, f := range []struct {
			v   history.Value
			dst *any
		}{{d.Key, &dep.Key}, {d.Value, &dep.Value}, {d.Next, &dep.Next}} {
			if !f.v.IsNone() {
				*f.dst = f.v.JSON()
			}
		}
		out = append(out, dep)
	}
	return out
}

// Op is one operation as the input gave it.
type Op struct {
	// Index is the input's own index when it has one, else the operation's
	// position in the input (0-based).
	Index   int64  `json:"index"`
	Process string `json:"process"`
	F       string `json:"f"`
	Value   any    `json:"value"`
	Key     any    `json:"key,omitempty"`
	// Version and Token are the operation's version and fencing token,
	// when the input gave them.
	Version any `json:"version,omitempty"`
	Token   any `json:"token,omitempty"`
	// Fields are the other fields the input gave the operation (such as a
	// lease's ttl), by name; a model may read them. With the fields above
	// an Op holds everything a model compiles an operation from, so the
	// operations of a core can be written back as a history and checked
	// again on their own.
	Fields map[string]any `json:"fields,omitempty"`
	// Call and Return place the operation in real time: recorded times,
	// or, in a history ordered by its events (History.Order), the places
	// of its events in the input.
	Call int64 `json:"call"`
	// Return is null when the outcome is unknown.
	Return *int64 `json:"return"`
	// Type is "ok", "fail" or "info".
	Type string `json:"type"`
	// Label is the textbook rendering, e.g. "B:r(0)".
	Label string `json:"label"`
	// Times are the recorded times of an operation of a history ordered
	// by its events, when the input gave times: [call, return], return
	// null when the outcome is unknown.
	Times []*int64 `json:"times,omitempty"`

	// pos is the operation's position in History.Source plus one, so that
	// the HTML report can find it; 0 when unknown (a decoded report).
	pos int
}

// Ladder places the history on the ladder of consistency models.
type Ladder struct {
	// Strongest lists the strongest criteria that hold (none stronger holds).
	Strongest []string `json:"strongest_satisfied"`
	// Weakest lists the weakest criteria that fail (none weaker fails).
	Weakest []string `json:"weakest_violated"`
}

// NewOp converts the operation at position i of h.
func NewOp(h *history.History, i int) Op {
	o := &h.Ops[i]
	op := Op{
		Index:   o.Index,
		Process: o.Client,
		F:       o.F,
		Value:   o.Value.JSON(),
		Call:    o.Call,
		Type:    o.Status.String(),
		Label:   o.Label(),
		pos:     i + 1,
	}
	if !o.Key.IsNone() {
		op.Key = o.Key.JSON()
	}
	if !o.Version.IsNone() {
		op.Version = o.Version.JSON()
	}
	if !o.Token.IsNone() {
		op.Token = o.Token.JSON()
	}
	for _, f := range o.Extra {
		if op.Fields == nil {
			op.Fields = make(map[string]any, len(o.Extra))
		}
		if _, dup := op.Fields[f.Name]; !dup {
			op.Fields[f.Name] = f.Value.JSON()
		}
	}
	if o.Return != history.Infinity {
		r := o.Return
		op.Return = &r
	}
	if h.Order == history.FileOrder && h.Timed {
		call, ret := o.Times.Call, o.Times.Return
		op.Times = []*int64{&call, nil}
		if o.Status != history.Info {
			op.Times[1] = &ret
		}
	}
	return op
}

func ops(h *history.History, pos []int) []Op {
	if len(pos) == 0 {
		return nil
	}
	out := make([]Op, 0, len(pos))
	for _, i := range pos {
		if i >= 0 && i < len(h.Ops) {
			out = append(out, NewOp(h, i))
		}
	}
	return out
}

// ReadFrom says which write a read read; Write is absent when it read
// the initial value.
type ReadFrom struct {
	Read  Op  `json:"read"`
	Write *Op `json:"write,omitempty"`
}

func readsFrom(h *history.History, rf []checker.ReadFrom) []ReadFrom {
	var out []ReadFrom
	for _, x := range rf {
		if x.Read < 0 || x.Read >= len(h.Ops) {
			continue
		}
		r := ReadFrom{Read: NewOp(h, x.Read)}
		if x.Write >= 0 && x.Write < len(h.Ops) {
			w := NewOp(h, x.Write)
			r.Write = &w
		}
		out = append(out, r)
	}
	return out
}

// View is one view of a weak criterion's witness: for the causal
// criteria an operation's causal past, for pram a process's view of
// every operation, for the session guarantees the operations an
// operation sees; Order names the operations by their index, in the
// order the model accepts them.
type View struct {
	Op      Op      `json:"op"`
	Process bool    `json:"process,omitempty"`
	Order   []int64 `json:"order"`
}

func views(h *history.History, vs []checker.View) []View {
	var out []View
	for _, v := range vs {
		if v.Op < 0 || v.Op >= len(h.Ops) {
			continue
		}
		w := View{Op: NewOp(h, v.Op), Process: v.Process, Order: make([]int64, 0, len(v.Order))}
		for _, p := range v.Order {
			if p >= 0 && p < len(h.Ops) {
				w.Order = append(w.Order, h.Ops[p].Index)
			}
		}
		out = append(out, w)
	}
	return out
}

// NewResult converts a checker result about h.
func NewResult(h *history.History, r checker.Result) Result {
	out := Result{
		Consistency: r.Criterion,
		Valid:       r.Valid,
		Witness:     ops(h, r.Witness),
		Dropped:     ops(h, r.Dropped),
		ReadsFrom:   readsFrom(h, r.ReadsFrom),
		Views:       views(h, r.Views),
		Reason:      r.Reason,
		Method:      r.Method,
		ElapsedMS:   float64(r.Elapsed) / float64(time.Millisecond),
		Jepsen:      newJepsen(h, r.Jepsen),
	}
	if r.Stats != (checker.Stats{}) {
		out.Stats = &Stats{States: r.Stats.States, MemoSize: r.Stats.MemoSize,
			Partitions: r.Stats.Partitions, OpsChecked: r.Stats.Ops}
	}
	reads := newReadIndex(h)
	for _, v := range r.Violations {
		explanation, named := explainNamed(h, reads, r.Criterion, v)
		rv := Violation{
			// An array in JSON, as documented, even when empty; with
			// every operation the explanation names, so that the list
			// and the words are about the same operations.
			Ops:         orNoOps(ops(h, withNamed(v.Ops, named))),
			Explanation: explanation,
			Pattern:     v.Pattern,
			Key:         v.Key,
			Cycle:       dependencies(h, v.Cycle),
			Isolation:   newIsolation(h, v.Isolation),
			steps:       newPrefixSteps(&v),
		}
		if v.Count != nil || v.Pattern == "owners-held" {
			// Counting names the operations it turns on; their timeline
			// is the small picture of it.
			rv.timeline = Timeline(h, v.Ops)
		}
		out.Violations = append(out.Violations, rv)
	}
	return out
}

// NewHistory describes h (without results) for the report.
func NewHistory(file, modelName string, h *history.History) History {
	c := h.Counts()
	return History{
		File:      file,
		Model:     modelName,
		NilRead:   "value",
		Order:     h.Order.String(),
		Ops:       len(h.Ops),
		OK:        c.OK,
		Failed:    c.Fail,
		Unknown:   c.Info,
		Processes: h.Processes,
		Clients:   h.Clients,
		Ignored:   h.Ignored,
		Warnings:  h.Warnings,
		Results:   []Result{},
		Source:    h,
	}
}

// InitJSON encodes an initial value for History.Init; None gives nil (the
// field is then left out).
func InitJSON(v history.Value) json.RawMessage {
	if v.IsNone() {
		return nil
	}
	b, err := json.Marshal(v.JSON())
	if err != nil {
		return nil
	}
	return b
}

// Combine folds verdicts: false dominates, then unknown, then true. No
// verdicts at all give true.
func Combine(vs ...checker.Verdict) checker.Verdict { return check.Combine(vs...) }

// Finish sets r's overall verdict from its results and the version.
func (r *Report) Finish() {
	r.Version = Version
	var vs []checker.Verdict
	for _, h := range r.Histories {
		for _, res := range h.Results {
			vs = append(vs, res.Valid)
		}
	}
	r.Valid = Combine(vs...)
	r.Reason = ""
	if r.Valid == checker.Unknown {
		n := 0
		for _, v := range vs {
			if v == checker.Unknown {
				n++
			}
		}
		verb := "are"
		if n == 1 {
			verb = "is" // "1 of 3 results is unknown": one result
		}
		r.Reason = fmt.Sprintf("%d of %d results %s unknown", n, len(vs), verb)
	}
	if r.Histories == nil {
		r.Histories = []History{}
	}
}
