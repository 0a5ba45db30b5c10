package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// modelSpec is what --model (or a file's model setting) names: one model for
// every object of the history, or a model per key.
type modelSpec struct {
	// all is the one model for every object; "" when models are per key.
	all string
	// pairs are the KEY=MODEL pairs in the order given.
	pairs []keyModel
	// def is the model of the keys the pairs do not name (*=MODEL), or "".
	def string
}

type keyModel struct{ key, model string }

// defaultKey is the key that stands for every key not named.
const defaultKey = "*"

// ParseModels reads a model setting, "MODEL" or "KEY=MODEL,KEY=MODEL,*=MODEL"
// (a model per key; *=MODEL for the keys not named).
func ParseModels(s string) (modelSpec, error) {
	var spec modelSpec
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	seen := map[string]string{}
	for _, p := range parts {
		key, name, ok := strings.Cut(p, "=")
		if !ok {
			if len(parts) > 1 {
				return modelSpec{}, fmt.Errorf("--model %q: give one model for every object, or KEY=MODEL pairs (e.g. lock=lease,stock=fenced-register)", s)
			}
			spec.all = p
			continue
		}
		key, name = strings.TrimSpace(key), strings.TrimSpace(name)
		if key == "" || name == "" {
			return modelSpec{}, fmt.Errorf("--model %q: %q needs a key and a model, KEY=MODEL", s, p)
		}
		if prev, dup := seen[key]; dup {
			if prev != name {
				return modelSpec{}, fmt.Errorf("--model %q: key %s is given two models, %s and %s", s, key, prev, name)
			}
			continue
		}
		seen[key] = name
		if key == defaultKey {
			spec.def = name
			continue
		}
		spec.pairs = append(spec.pairs, keyModel{key: key, model: name})
	}
	if spec.all == "" && len(seen) == 0 {
		return modelSpec{}, fmt.Errorf("--model %q names no model", s)
	}
	return spec, nil
}

// perKey reports whether the spec gives models per key.
func (s modelSpec) perKey() bool { return s.all == "" }

// String writes the spec as --model takes it, the default last.
func (s modelSpec) String() string {
	if s.all != "" {
		return s.all
	}
	parts := make([]string, 0, len(s.pairs)+1)
	for _, p := range s.pairs {
		parts = append(parts, p.key+"="+p.model)
	}
	if s.def != "" {
		parts = append(parts, defaultKey+"="+s.def)
	}
	return strings.Join(parts, ",")
}

// names lists the models the spec uses, each once.
func (s modelSpec) names() []string {
	if s.all != "" {
		return []string{s.all}
	}
	var out []string
	for _, p := range s.pairs {
		if !slices.Contains(out, p.model) {
			out = append(out, p.model)
		}
	}
	if s.def != "" && !slices.Contains(out, s.def) {
		out = append(out, s.def)
	}
	return out
}

// lookupAll finds every model the spec names.
func (s modelSpec) lookupAll(ms []suite.Model) (map[string]suite.Model, error) {
	out := map[string]suite.Model{}
	for _, n := range s.names() {
		m, err := suite.Lookup(ms, n)
		if err != nil {
			return nil, err
		}
		out[n] = m
	}
	return out, nil
}

// object is one part of a history checked on its own: the operations on
// one key, with that key's model, or the whole history.
type object struct {
	// key is the object's key; perKey is false when the whole history is
	// checked as one (key is then None).
	key    history.Value
	perKey bool
	model  suite.Model
	h      *history.History
	// pos[i] is the position in the whole history of h.Ops[i]; nil when h
	// is the whole history.
	pos []int
}

// lift renames the operations of a result about o.h by their positions in
// the whole history, so that every result of a file speaks of one history.
func (o *object) lift(r checker.Result) checker.Result {
	if o.pos == nil {
		return r
	}
	at := func(x int) int {
		if x >= 0 && x < len(o.pos) {
			return o.pos[x]
		}
		return -1
	}
	m := func(xs []int) []int {
		if xs == nil {
			return nil
		}
		out := make([]int, len(xs))
		for i, x := range xs {
			out[i] = at(x)
		}
		return out
	}
	r.Witness, r.Dropped = m(r.Witness), m(r.Dropped)
	for i, x := range r.ReadsFrom {
		r.ReadsFrom[i].Read = at(x.Read)
		if x.Write >= 0 {
			r.ReadsFrom[i].Write = at(x.Write)
		}
	}
	vs := make([]checker.Violation, len(r.Violations))
	for i, v := range r.Violations {
		vs[i] = v.MapOps(at)
	}
	if r.Violations != nil {
		r.Violations = vs
	}
	return r
}

// keyName is how a key is written in --model: a string as it is, anything
// else (a number) in its textual form.
func keyName(k history.Value) string {
	if s, ok := k.Str(); ok {
		return s
	}
	return k.String()
}

// objects splits h into the objects the spec checks. A single model that
// keeps its own keys (kv), or a history with at most one key, is one
// object; otherwise each key is an object with its own model. Keys the
// spec does not cover are an error that lists them.
func (s modelSpec) objects(ms []suite.Model, h *history.History) ([]object, error) {
	models, err := s.lookupAll(ms)
	if err != nil {
		return nil, err
	}
	if m, ok := models[s.all]; s.all != "" && ok && (m.Info.Keyed || oneKey(h)) {
		// One keyed model partitions the history itself; a history of
		// one key (or none, as transactions) has nothing to split.
		return []object{{model: m, h: h}}, nil
	}
	keys, groups := checker.Partition(h)
	if len(keys) == 0 {
		// Nothing to split: check the empty history once, so that it
		// still gets a verdict line.
		name := s.all
		if name == "" {
			name = s.names()[0]
		}
		return []object{{model: models[name], h: h}}, nil
	}
	if s.all != "" {
		m := models[s.all]
		if m.Info.Keyed || len(keys) <= 1 {
			return []object{{model: m, h: h}}, nil
		}
	}
	byKey := map[string]string{}
	for _, p := range s.pairs {
		byKey[p.key] = p.model
	}
	var out []object
	var missing []string
	for i, k := range keys {
		name := s.all
		if name == "" {
			switch n, ok := byKey[keyName(k)]; {
			case k.IsNone():
				name = s.def
			case ok:
				name = n
			default:
				name = s.def
			}
		}
		if name == "" {
			if k.IsNone() {
				missing = append(missing, "(operations without a key)")
			} else {
				missing = append(missing, keyName(k))
			}
			continue
		}
		sub, err := subHistory(h, groups[i])
		if err != nil {
			return nil, err
		}
		out = append(out, object{key: k, perKey: true, model: models[name], h: sub, pos: groups[i]})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("--model %s names no model for %s; add KEY=MODEL for each, or *=MODEL for every key not named",
			s, strings.Join(missing, ", "))
	}
	return out, nil
}

// oneKey reports whether every operation of h has the same key (or
// none): a pass with no map, where a partition of a million transactions
// builds a group of all of them.
func oneKey(h *history.History) bool {
	for i := 1; i < len(h.Ops); i++ {
		if h.Ops[i].Key != h.Ops[0].Key {
			return false
		}
	}
	return true
}

// subHistory is the history of the operations at the given positions, in
// the same order (h's operations are sorted by call, and so are a
// history's). Its warnings are dropped: the whole history's are reported
// once.
func subHistory(h *history.History, positions []int) (*history.History, error) {
	ops := make([]history.Op, len(positions))
	for i, p := range positions {
		ops[i] = h.Ops[p]
	}
	sub, err := h.Derive(ops)
	if err != nil {
		return nil, fmt.Errorf("splitting the history by key: %w", err)
	}
	for i, p := range positions {
		if sub.Ops[i].Index != h.Ops[p].Index || sub.Ops[i].Call != h.Ops[p].Call {
			return nil, fmt.Errorf("splitting the history by key: operation %s moved", h.Ops[p].Label())
		}
	}
	sub.Warnings = nil
	sub.Meta = h.Meta
	return sub, nil
}

// unionKeys lists the distinct keys of h, sorted, for messages.
func unionKeys(h *history.History) []string {
	keys, _ := checker.Partition(h)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if !k.IsNone() {
			out = append(out, keyName(k))
		}
	}
	sort.Strings(out)
	return out
}
