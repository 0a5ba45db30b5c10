package linear_test

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

func Example() {
	ops := []history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 10, Status: history.OK},
		{Client: "B", F: "read", Value: history.IntValue(1), Call: 2, Return: 4, Status: history.OK},
		{Client: "C", F: "read", Value: history.IntValue(0), Call: 5, Return: 7, Status: history.OK},
	}
	h, err := history.FromOps(ops)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	res, err := linear.Check(context.Background(), m, h, linear.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Reads and writes of unique values: decided by the zones algorithm.
	fmt.Println("linearizable:", res.Valid, "by", res.Method)
	for _, v := range res.Violations {
		fmt.Println(report.Explain(h, checker.Linearizable, v))
	}
	// The general search explains it by the operation that cannot take
	// effect.
	res, _ = linear.Check(context.Background(), m, h, linear.Options{NoZones: true})
	fmt.Println("linearizable:", res.Valid, "by", res.Method)
	for _, v := range res.Violations {
		fmt.Println(report.Explain(h, checker.Linearizable, v))
	}

	// Let C's read overlap B's: now an order exists.
	ops[2].Call, ops[2].Return = 1, 3
	h, _ = history.FromOps(ops)
	res, _ = linear.Check(context.Background(), m, h, linear.Options{})
	fmt.Println("linearizable:", res.Valid)
	for _, i := range res.Witness {
		fmt.Print(h.Ops[i].Label(), " ")
	}
	fmt.Println()
	// Output:
	// linearizable: false by zones
	// The initial value 0 must stay in the register until C:r(0) was called (at 5), since it reads it; but 1, written only by A:w(1), can be in the register only at some instant from 2 to 4 (after B:r(1) was called, before B:r(1) returned), which is within that span
	// linearizable: false by wgl
	// C:r(0) cannot take effect: read 0 but the register holds 1 (after A:w(1) -> B:r(1))
	// linearizable: true
	// C:r(0) A:w(1) B:r(1)
}
