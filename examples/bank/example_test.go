package bank_test

import (
	"context"
	"fmt"
	"os"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/cli"
	"github.com/histcheck/histcheck/examples/bank"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// readme:begin library

// check reads a history (JSON, EDN, …) and decides whether it is
// linearizable for the bank model, starting from the file's "init".
func check(path string) (*history.History, checker.Result, error) {
	h, err := format.ReadFile(path, "")
	if err != nil {
		return nil, checker.Result{}, err
	}
	m := bank.New(model.Options{Init: h.Meta["init"]})
	res, err := linear.Check(context.Background(), m, h, linear.Options{})
	return h, res, err
}

// readme:end library

// Example checks two histories of the bank through the library: one that
// is linearizable, with the order that shows it, and one where a transfer
// was lost, with the explanation.
func Example() {
	for _, path := range []string{"testdata/transfers.json", "testdata/lost-transfer.json"} {
		h, res, err := check(path)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(path, res.Valid)
		for _, i := range res.Witness {
			fmt.Println("  ", h.Ops[i].Label())
		}
		for _, v := range res.Violations {
			fmt.Println("  ", report.Explain(h, checker.Linearizable, v))
		}
	}
	// Output:
	// testdata/transfers.json true
	//    A:transfer([0 2 5])
	//    B:r([5 10 5])
	//    C:transfer([1 0 7])
	//    B:r([12 3 5])
	// testdata/lost-transfer.json false
	//    B:r([5 3 5]) cannot take effect: read [5 3 5] but the balances are [12 3 5] (after A:transfer([0 2 5]) -> B:r([5 10 5]) -> C:transfer([1 0 7]))
}

// Example_cli runs histcheck's command line with the bank model added, as
// cmd/bankcheck does.
func Example_cli() {
	code := cli.Main([]string{"check", "testdata/transfers.json", "testdata/lost-transfer.json"},
		os.Stdin, os.Stdout, os.Stdout, suite.Bind(bank.New))
	fmt.Println("exit status", code)
	// Output:
	// testdata/transfers.json	linearizable	true
	//     witness: A:transfer([0 2 5]) -> B:r([5 10 5]) -> C:transfer([1 0 7]) -> B:r([12 3 5])
	// testdata/lost-transfer.json	linearizable	false
	//     violation: B:r([5 3 5]) [16, 18]; weakened: A:transfer([0 2 5]) [0, 10], C:transfer([1 0 7]) [13, 15]
	//       core: B:r([5 3 5]); weakened: A:transfer([0 2 5]), C:transfer([1 0 7])
	//       (weakened: kept in the core only as an operation of unknown outcome, which may
	//       have taken effect or not; the violation needs it to exist, not when it took
	//       effect)
	//         A |==== transfer([0 2 5]) =========|                                   [0, 10]
	//         C                                            |= transfer([1 0 7]) |    [13, 15]
	//         B                                                     |= r([5 3 5]) |  [16, 18]
	//       B:r([5 3 5]) cannot take effect: read [5 3 5] but the balances are [12 3 5] (after
	//       A:transfer([0 2 5]) -> C:transfer([1 0 7])).
	// exit status 1
}
