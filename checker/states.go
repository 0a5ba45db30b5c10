package checker

import "github.com/histcheck/histcheck/model"

// MaxStates bounds Violation.States: a search's longest legal order can
// hold a whole history, and the states nearest the failure are the ones
// a reader looks at.
const MaxStates = 2000

// PrefixStates replays m along prefix (positions in the history c was
// compiled from) from init and returns the model's description of its
// state after each of the last MaxStates operations (Violation.States).
// It returns nil when an operation of prefix is not in c or the model
// refuses one, which a legal order never makes it do.
func PrefixStates[S comparable](m model.Model[S], c *Compiled, init S, prefix []int) []string {
	if len(prefix) == 0 {
		return nil
	}
	at := make(map[int]int, len(c.Pos))
	for i, p := range c.Pos {
		at[p] = i
	}
	first := max(0, len(prefix)-MaxStates)
	out := make([]string, 0, len(prefix)-first)
	s := init
	for k, p := range prefix {
		i, ok := at[p]
		if !ok {
			return nil
		}
		if s, ok = m.Step(s, &c.Ops[i]); !ok {
			return nil
		}
		if k >= first {
			out = append(out, m.Describe(s, c.Table))
		}
	}
	return out
}
