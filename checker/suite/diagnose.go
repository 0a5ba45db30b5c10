package suite

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// ModelPanic says where a model's own code panicked: which of its
// functions, on which operation and, for Step, in which state. It is found
// after the fact, by replaying the model on the history's operations, so
// that the search pays nothing for it.
type ModelPanic struct {
	Model string
	// Func is the model's function that panicked: Compile, Init, Step or
	// Describe.
	Func string
	// Op is the operation's position in the history, or -1 for Init.
	Op int
	// Label shows the operation as reports do; State describes the state
	// Step was given ("" when Describe itself panics or for Compile/Init).
	Label, State string
	// Value is what the model panicked with.
	Value any
}

// String says where the model panicked, without the panic's value:
// "in model boom's Step on op 3 (A:w(1)) in state "0"".
func (p *ModelPanic) String() string {
	s := fmt.Sprintf("in model %s's %s", history.Quote(p.Model), p.Func)
	if p.Op >= 0 {
		s += fmt.Sprintf(" on op %d (%s)", p.Op, p.Label)
	}
	if p.State != "" {
		s += fmt.Sprintf(" in state %q", p.State)
	}
	return s
}

// diagnoseSteps bounds the replay: states explored times operations tried.
const diagnoseSteps = 1 << 20

// diagnose replays m on h's operations, outside any engine, to find one
// compile, initial state or step that panics: every state reachable from the
// initial one by stepping the history's operations in any order, breadth
// first, up to diagnoseSteps steps. It returns nil when no panic shows.
func diagnose[S comparable](name string, m model.Model[S], h *history.History) *ModelPanic {
	c, p := compileGuarded(name, m, h)
	if c == nil {
		return p
	}
	var init S
	if p := guard(name, "Init", -1, "", func() { init = m.Init(c.Table) }); p != nil {
		return p
	}
	seen := map[S]bool{init: true}
	queue := []S{init}
	for steps := 0; len(queue) > 0 && steps < diagnoseSteps; queue = queue[1:] {
		s := queue[0]
		for i := range c.Ops {
			steps++
			var (
				next S
				ok   bool
			)
			if p := guard(name, "Step", c.Pos[i], "", func() { next, ok = m.Step(s, &c.Ops[i]) }); p != nil {
				p.Label = h.Ops[c.Pos[i]].Label()
				p.State = describe(m, s, c.Table)
				return p
			}
			if ok && !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// compileGuarded compiles h for m; when that panics, it finds the
// operation whose Compile does.
func compileGuarded[S comparable](name string, m model.Model[S], h *history.History) (*checker.Compiled, *ModelPanic) {
	var (
		c   *checker.Compiled
		err error
	)
	if guard(name, "Compile", -1, "", func() { c, err = checker.Compile(m, h, nil, nil, false) }) == nil {
		if err != nil {
			return nil, nil // an input error, which engines report as such
		}
		return c, nil
	}
	t := model.NewTable()
	for i := range h.Ops {
		if p := guard(name, "Compile", i, h.Ops[i].Label(), func() { _, _ = m.Compile(&h.Ops[i], t) }); p != nil {
			return nil, p
		}
	}
	return nil, &ModelPanic{Model: name, Func: "Compile", Op: -1, Value: "a panic no single operation repeats"}
}

// describe renders s, or says that Describe panicked too.
func describe[S comparable](m model.Model[S], s S, t *model.Table) (text string) {
	if guard("", "Describe", -1, "", func() { text = m.Describe(s, t) }) != nil {
		return "(Describe panicked)"
	}
	return text
}

// guard runs f and returns what it panicked with, as a ModelPanic.
func guard(name, fn string, op int, label string, f func()) (p *ModelPanic) {
	defer func() {
		if r := recover(); r != nil {
			p = &ModelPanic{Model: name, Func: fn, Op: op, Label: label, Value: r}
		}
	}()
	f()
	return nil
}
