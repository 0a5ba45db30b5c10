package isolation

import (
	"strings"

	"github.com/histcheck/histcheck/checker"
)

// lostUpdate finds two transactions that read one write of a key and
// both wrote the key: snapshot isolation, parallel snapshot isolation
// and serializability rule it out (each must see the other's write),
// prefix consistency does not.
func (ix *index) lostUpdate() (checker.Violation, bool) {
	for v := 1; v < len(ix.reads); v++ {
		for _, r := range ix.reads[v] {
			if !ix.writesKey(node(v), r.key) {
				continue
			}
			for _, o := range ix.readers[pairKey(r.src, r.key)] {
				if o == node(v) || !ix.writesKey(o, r.key) {
					continue
				}
				key := ix.keys[r.key].String()
				from := ix.valueOf(r.src, r.key)
				steps := []checker.IsolationStep{
					{From: ix.opOf(r.src), To: ix.opOf(node(v)), Type: "wr", Key: key, Value: from},
					{From: ix.opOf(r.src), To: ix.opOf(o), Type: "wr", Key: key, Value: from},
				}
				f := &checker.IsolationFact{Elle: "lost-update", Reader: ix.opOf(node(v)), Mop: int(r.mop), Key: key, Value: from,
					Writer: ix.opOf(r.src), Steps: steps}
				return checker.Violation{Ops: opsOf(ix.opOf(node(v)), ix.opOf(o), ix.opOf(r.src)), Pattern: "lost-update",
					Op: ix.opOf(node(v)), Isolation: f}, true
			}
		}
	}
	return checker.Violation{}, false
}

// elleCycle names a cycle of dependencies as Elle would.
func elleCycle(steps []checker.IsolationStep) string {
	rw, wr, process := 0, false, false
	for _, st := range steps {
		switch st.Type {
		case "rw":
			rw++
		case "wr":
			wr = true
		case "so":
			process = true
		}
	}
	var name string
	switch {
	case rw == 0 && !wr:
		name = "G0"
	case rw == 0:
		name = "G1c"
	case rw == 1:
		name = "G-single"
	default:
		name = "G-nonadjacent"
		for i, st := range steps {
			if st.Type == "rw" && steps[(i+1)%len(steps)].Type == "rw" {
				name = "G2-item"
			}
		}
	}
	if process {
		name += "-process"
	}
	return name
}

// cycleViolation states a cycle of the search (and, when neither order
// of two writers can be taken, the cycle the other order closes). Its
// transactions are the cycles' and, for each rw edge, the writer whose
// version was read and overwritten: that writer's place (in its session,
// or read from) is what orders the overwrite after it.
func (s *searcher) cycleViolation(es, others []edge) checker.Violation {
	steps, other := s.stepsOf(es), s.stepsOf(others)
	f := &checker.IsolationFact{Reader: checker.None, Writer: checker.None, Steps: steps, Other: other}
	f.Elle = elleCycle(steps)
	pattern := f.Elle
	if !strings.Contains(pattern, "-") || strings.HasPrefix(pattern, "G1c") {
		// a cycle of session order and reads-from alone is Plume's CyclicCO
		if pattern == "G1c" || pattern == "G1c-process" {
			f.Plume = "CyclicCO"
		}
	}
	var ops []int
	for _, st := range append(append([]checker.IsolationStep(nil), steps...), other...) {
		if st.From >= 0 {
			ops = append(ops, st.From)
		}
	}
	for _, e := range append(append([]edge(nil), es...), others...) {
		if e.kind == edgeRW && node(e.ref) != initial {
			ops = append(ops, s.ix.opOf(node(e.ref)))
		}
	}
	ops = dedupe(ops)
	return checker.Violation{Ops: ops, Pattern: pattern, Op: firstOr(ops), Isolation: f}
}

// exhausted states that the search tried every order of the writers
// pruning left open and none worked.
func (s *searcher) exhausted(open []int) checker.Violation {
	var ops []int
	for _, ci := range open {
		c := s.cons[ci]
		ops = append(ops, s.ix.opOf(c.a), s.ix.opOf(c.b))
		if len(ops) >= 20 {
			break
		}
	}
	ops = dedupe(ops)
	f := &checker.IsolationFact{Reader: checker.None, Writer: checker.None, Undecided: len(open)}
	return checker.Violation{Ops: ops, Pattern: "no-commit-order", Op: firstOr(ops), Isolation: f}
}
