package sequential

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// renamed is the register under other operation names, with or without
// classes in its Info.
type renamed struct {
	model.Model[int64]
	classes bool
}

func (r renamed) Info() model.Info {
	read, write := model.OpInfo{Names: []string{"load"}}, model.OpInfo{Names: []string{"store"}}
	if r.classes {
		read.Class, write.Class = model.ReadOp, model.WriteOp
	}
	return model.Info{Name: "cell", Ops: []model.OpInfo{read, write}}
}

func (r renamed) Compile(op *history.Op, t *model.Table) (model.Op, error) {
	o := *op
	o.F = map[string]string{"load": "read", "store": "write"}[op.F]
	return r.Model.Compile(&o, t)
}

// TestModelClasses checks that the search's eager reads and the
// saturation's writes are the operations the model classes so, whatever
// their names.
func TestModelClasses(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "store", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "load", Value: history.IntValue(1), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, classes := range []bool{true, false} {
		m := renamed{model.NewRegister(model.Options{}), classes}
		c, err := checker.Compile[int64](m, h, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		p := newProblem[int64](m, h, c, false)
		for i, pos := range c.Pos {
			if want := classes && h.Ops[pos].F == "load"; p.readLike[i] != want {
				t.Errorf("classes %v: %s read-like = %v, want %v", classes, h.Ops[pos].Label(), p.readLike[i], want)
			}
		}
		if g, _ := buildSatGraph(p); (g != nil) != classes {
			t.Errorf("classes %v: saturation graph built = %v", classes, g != nil)
		}
	}
}
