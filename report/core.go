package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
)

// Core is a minimal violating set: the few operations of a history that
// still violate the criterion when everything else is weakened (given
// unknown outcome: it may have taken effect at any time after its call, or
// never). Ops as they are and Weakened with unknown outcome form a history
// that violates the criterion on its own (WriteHistory writes it: as Jepsen
// events in their order when the history is ordered by its events). See
// docs/explanations.md.
type Core struct {
	// Ops are the essential operations, kept as recorded, in call order.
	Ops []Op `json:"ops"`
	// Weakened are operations the violation needs to exist (a read in the
	// core returns their value) but not when they took effect, nor whether
	// they finished.
	Weakened []Op `json:"weakened"`
	// Minimal is set when weakening any one of Ops was shown to make the
	// violation go away; unset when the time allowed ran out first.
	Minimal bool `json:"minimal"`
	// Explanation says in plain words why the core violates the
	// criterion: a first paragraph telling the story, then one line per
	// fact ("- B:r(1) ran from 2 to 4.").
	Explanation string `json:"explanation"`
	// Timeline draws the core's operations as text, one lane per process.
	Timeline string `json:"timeline"`
	// Key is the key the core's operations act on, for a keyed model. It
	// may differ from the violation's: when several keys fail, the core
	// is taken from the one that fails earliest.
	Key string `json:"key,omitempty"`
}

// NewCore describes a core that shrink.Minimize found in h.
func NewCore(h *history.History, c shrink.Core) *Core { return newCore(h, c, history.Value{}) }

// newCore is NewCore knowing the initial value the check used (None when
// it is not known), which the core's facts may name.
func newCore(h *history.History, c shrink.Core, init history.Value) *Core {
	crit := c.Criterion
	if crit == "" {
		crit = checker.Linearizable
	}
	all := append(append([]int(nil), c.Ops...), c.Weakened...)
	out := &Core{
		Ops:         orNoOps(ops(h, byCall(h, c.Ops))),
		Weakened:    orNoOps(ops(h, byCall(h, c.Weakened))),
		Minimal:     c.Minimal,
		Explanation: coreStory(h, c, crit, coreReason(h, c, crit), init),
		Timeline:    Timeline(h, all),
		Key:         c.Violation.Key,
	}
	return out
}

// adopt makes the core's explanation the violation's only one: the
// violation names the core's operations (weakened ones included, in call
// order), its key, the pattern the checker found in the core's history,
// and the core's story; its longest legal order is the one found in the
// core's history, so that every part of the report tells of the same
// operations.
func (v *Violation) adopt(h *history.History, sc shrink.Core, c *Core) {
	v.Core = c
	all := byCall(h, append(append([]int(nil), sc.Ops...), sc.Weakened...))
	v.Ops = orNoOps(ops(h, all))
	if c.Key != "" {
		v.Key = c.Key
	}
	if sc.History != nil {
		v.Pattern = sc.Violation.Pattern
	}
	if story := c.Story(); story != "" {
		v.Explanation = story
	}
	if sc.History != nil && len(sc.Origin) == len(sc.History.Ops) {
		at := func(p int) int {
			if p < 0 || p >= len(sc.Origin) {
				return p
			}
			return sc.Origin[p]
		}
		mapped := sc.Violation.MapOps(at)
		v.steps = newPrefixSteps(&mapped)
	} else {
		v.steps = nil
	}
}

// coreReason is the checker's words for the violation it found in the
// core's own history, whose operations its positions name.
func coreReason(h *history.History, c shrink.Core, criterion string) string {
	if c.History == nil || len(c.Origin) != len(c.History.Ops) {
		return ""
	}
	return explainCore(h, criterion, c.History, c.Origin, c.Violation)
}

// WriteHistory writes the core as a history of its own, which violates
// the criterion when checked alone: a wrapper object with h's settings
// (init, nil_read, ttl), modelName unless it is empty, and the core's
// operations in the ops format, the weakened ones with unknown outcome
// ("type": "info", "return": null). It needs nothing but the core and h as
// the JSON report gives them.
// coreEntry is an operation of a core, and whether it is weakened.
type coreEntry struct {
	op   Op
	weak bool
}

func (c *Core) WriteHistory(w io.Writer, h *History, modelName string) error {
	all := make([]coreEntry, 0, c.Size())
	for _, o := range c.Ops {
		all = append(all, coreEntry{o, false})
	}
	for _, o := range c.Weakened {
		all = append(all, coreEntry{o, true})
	}
	var ops []map[string]any
	if h.Order == history.FileOrder.String() {
		ops = coreEvents(all)
	} else {
		// A reader orders operations by call, ties by their place in
		// the file: keep ties in the order of their index, which is the
		// input's order.
		sort.SliceStable(all, func(a, b int) bool {
			x, y := &all[a].op, &all[b].op
			return x.Call < y.Call || x.Call == y.Call && x.Index < y.Index
		})
		for _, e := range all {
			ops = append(ops, e.op.fields(e.weak))
		}
	}
	wrapper := map[string]any{"nil_read": h.NilRead, "history": ops, "order": h.Order}
	if h.Init != nil {
		wrapper["init"] = h.Init
	}
	if h.TTL > 0 {
		wrapper["ttl"] = h.TTL
	}
	if modelName != "" {
		wrapper["model"] = modelName
	}
	b, err := json.MarshalIndent(wrapper, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the core as a history: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// fields renders an operation in the ops format of the input, with
// unknown outcome when weak.
func (o *Op) fields(weak bool) map[string]any {
	m := make(map[string]any, 8+len(o.Fields))
	for name, v := range o.Fields {
		m[name] = v
	}
	m["index"], m["process"], m["f"], m["value"] = o.Index, o.Process, o.F, o.Value
	m["call"], m["return"], m["type"] = o.Call, o.Return, o.Type
	for name, v := range map[string]any{"key": o.Key, "version": o.Version, "token": o.Token} {
		if v != nil {
			m[name] = v
		}
	}
	if weak {
		m["return"], m["type"] = nil, "info"
	}
	return m
}

// coreEvents writes a core of a history ordered by its events as Jepsen
// events in that order: an invocation at its call's place, a completion
// at its return's (right after the invocation when the outcome is
// unknown), each with its recorded time when the input gave times.
func coreEvents(all []coreEntry) []map[string]any {
	type placed struct {
		at, sub int64
		ev      map[string]any
	}
	var evs []placed
	for _, e := range all {
		o := &e.op
		inv := o.fields(false)
		delete(inv, "call")
		delete(inv, "return")
		delete(inv, "index")
		done := maps.Clone(inv)
		inv["type"] = "invoke"
		if len(o.Times) == 2 {
			inv["time"] = *o.Times[0]
		}
		at, sub := o.Call, int64(1)
		if e.weak || o.Return == nil {
			done["type"] = "info"
			if len(o.Times) == 2 {
				done["time"] = *o.Times[0]
			}
		} else {
			at, sub = *o.Return, 0
			if len(o.Times) == 2 && o.Times[1] != nil {
				done["time"] = *o.Times[1]
			}
		}
		evs = append(evs, placed{o.Call, 0, inv}, placed{at, sub, done})
	}
	sort.SliceStable(evs, func(a, b int) bool {
		return evs[a].at < evs[b].at || evs[a].at == evs[b].at && evs[a].sub < evs[b].sub
	})
	out := make([]map[string]any, len(evs))
	for i := range evs {
		out[i] = evs[i].ev
	}
	return out
}

// Size is the number of operations in the core, weakened ones included.
func (c *Core) Size() int { return len(c.Ops) + len(c.Weakened) }

// Story is the explanation's first paragraph: what happened, in a sentence
// or three. It is empty when the explanation has only facts.
func (c *Core) Story() string {
	story, _, _ := strings.Cut(c.Explanation, "\n\n")
	if strings.HasPrefix(story, "- ") {
		return ""
	}
	return story
}

// Facts are the explanation's fact lines, without their leading "- ".
func (c *Core) Facts() []string {
	var out []string
	for _, line := range strings.Split(c.Explanation, "\n") {
		if f, ok := strings.CutPrefix(line, "- "); ok {
			out = append(out, f)
		}
	}
	return out
}

// byCall returns the positions that exist in h sorted by call time
// (stable), so that a core reads in the order things happened.
func byCall(h *history.History, pos []int) []int {
	var out []int
	for _, p := range pos {
		if p >= 0 && p < len(h.Ops) {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return h.Ops[out[a]].Call < h.Ops[out[b]].Call })
	return out
}

func orNoOps(xs []Op) []Op {
	if xs == nil {
		return []Op{}
	}
	return xs
}
