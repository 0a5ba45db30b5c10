package report

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Isolation is a violation of an isolation level decided from commit
// orders, as facts; transactions are named by their indexes (Op.Index),
// the initial state by "initial".
type Isolation struct {
	Plume     string          `json:"plume,omitempty"`
	Elle      string          `json:"elle,omitempty"`
	Reader    any             `json:"reader,omitempty"`
	Mop       int             `json:"mop,omitempty"`
	Key       string          `json:"key,omitempty"`
	Value     string          `json:"value,omitempty"`
	Writer    any             `json:"writer,omitempty"`
	Own       string          `json:"own,omitempty"`
	Steps     []IsolationStep `json:"steps,omitempty"`
	Other     []IsolationStep `json:"other,omitempty"`
	Undecided int             `json:"undecided,omitempty"`
}

// IsolationStep is one order of a cycle: so, wr, ww, rw or co (see
// checker.IsolationStep).
type IsolationStep struct {
	From     any    `json:"from"`
	To       any    `json:"to"`
	Type     string `json:"type"`
	Key      string `json:"key,omitempty"`
	Value    string `json:"value,omitempty"`
	Reader   any    `json:"reader,omitempty"`
	Why      string `json:"why,omitempty"`
	ViaKey   string `json:"via_key,omitempty"`
	ViaValue string `json:"via_value,omitempty"`
}

// txnIndex names transaction p of h: its index, "initial", or nil.
func txnIndex(h *history.History, p int) any {
	switch {
	case p == checker.Initial:
		return "initial"
	case p >= 0 && p < len(h.Ops):
		return h.Ops[p].Index
	}
	return nil
}

func newIsolation(h *history.History, f *checker.IsolationFact) *Isolation {
	if f == nil {
		return nil
	}
	steps := func(ss []checker.IsolationStep) []IsolationStep {
		var out []IsolationStep
		for _, s := range ss {
			st := IsolationStep{From: txnIndex(h, s.From), To: txnIndex(h, s.To), Type: s.Type, Key: s.Key, Value: s.Value,
				Why: s.Why, ViaKey: s.ViaKey, ViaValue: s.ViaValue}
			if s.Type == "co" {
				st.Reader = txnIndex(h, s.Reader)
			}
			out = append(out, st)
		}
		return out
	}
	return &Isolation{Plume: f.Plume, Elle: f.Elle, Reader: txnIndex(h, f.Reader), Mop: f.Mop, Key: f.Key, Value: f.Value,
		Writer: txnIndex(h, f.Writer), Own: f.Own, Steps: steps(f.Steps), Other: steps(f.Other), Undecided: f.Undecided}
}
