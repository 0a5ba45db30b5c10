package model_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// idGen is a user's model of an id generator: "next" hands out the next
// id, 1, 2, 3, … A state is the last id handed out.
type idGen struct{}

func (idGen) Info() model.Info {
	return model.Info{
		Name: "id-generator",
		Doc:  "Hands out the ids 1, 2, 3, … in turn.",
		Ops: []model.OpInfo{
			{Names: []string{"next"}, Value: "int (the id handed out)", Doc: "hands out the next id"},
		},
	}
}

// Compile keeps the id an operation got in A. An operation of unknown
// outcome got nothing the model can check.
func (m idGen) Compile(op *history.Op, _ *model.Table) (model.Op, error) {
	if op.F != "next" {
		return model.Op{}, model.UnknownOpError(m.Info(), op.F)
	}
	if op.Status == history.Info {
		return model.Op{}, nil
	}
	id, ok := op.Value.Int()
	if !ok {
		return model.Op{}, fmt.Errorf("next needs the integer id handed out, got %s", op.Value)
	}
	return model.Op{A: id}, nil
}

func (idGen) Init(*model.Table) int64 { return 0 }

// Step hands out the next id; an operation of unknown outcome may have
// got any id, as long as it took the next one.
func (idGen) Step(last int64, op *model.Op) (int64, bool) {
	return last + 1, op.Unknown || op.A == last+1
}

func (idGen) Describe(last int64, _ *model.Table) string { return fmt.Sprint(last) }

// Explain makes violations say what went wrong in the model's words.
func (idGen) Explain(last int64, op *model.Op, _ *model.Table) string {
	return fmt.Sprintf("got id %d but the next id is %d", op.A, last+1)
}

// A model of one's own is a type that implements model.Model; the
// checkers take it as they take the built-in ones. Here C got an id that
// A had been handed before C asked.
func ExampleModel() {
	const text = `A: next->1 [0, 2]
B: next->2 [1, 5]
C: next->1 [3, 4]
`
	h, err := format.Read("ids.hist", strings.NewReader(text), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := linear.Check(context.Background(), idGen{}, h, linear.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("linearizable:", res.Valid)
	for _, v := range res.Violations {
		fmt.Println(report.Explain(h, checker.Linearizable, v))
	}
	// Output:
	// linearizable: false
	// C:next(1) cannot take effect: got id 1 but the next id is 3 (after A:next(1) -> B:next(2))
}

// suite.Bind gives a model of one's own every criterion that works from a
// sequential specification, as the built-in models have them. A got id 2
// and returned before B asked, yet B got id 1: not linearizable, but
// sequentially consistent, since A and B are different processes.
func ExampleModel_suite() {
	const text = `A: next->2 [0, 2]
B: next->1 [3, 4]
`
	h, err := format.Read("ids.hist", strings.NewReader(text), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := suite.Bind(func(model.Options) model.Model[int64] { return idGen{} })
	fmt.Println(m.Info.Name, m.Criteria)
	for _, c := range []string{checker.Linearizable, checker.Sequential} {
		res, err := suite.Run(context.Background(), m, h, c, model.Options{}, suite.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(c, res.Valid)
		for _, v := range res.Violations {
			fmt.Println("  ", report.Explain(h, c, v))
		}
		if len(res.Witness) > 0 {
			fmt.Print("   witness:")
			for _, i := range res.Witness {
				fmt.Print(" ", h.Ops[i].Label())
			}
			fmt.Println()
		}
	}
	// Output:
	// id-generator [linearizable sequential]
	// linearizable false
	//    A:next(2) cannot take effect: got id 2 but the next id is 1 (in the initial state)
	// sequential true
	//    witness: B:next(1) A:next(2)
}
