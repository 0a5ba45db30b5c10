package report_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// staleRead is a history in the textbook notation: C reads 0 after B read
// A's 1.
const staleRead = `A: w(1) [0, 10]
B: r(1) [2, 4]
C: r(0) [5, 7]
`

// checkStale reads staleRead and checks it for linearizability.
func checkStale() (*history.History, checker.Result, model.Options, error) {
	h, err := format.Read("stale.hist", strings.NewReader(staleRead), "")
	if err != nil {
		return nil, checker.Result{}, model.Options{}, err
	}
	mopts := model.Options{Init: h.Meta["init"]}
	res, err := linear.Check(context.Background(), model.NewRegister(mopts), h, linear.Options{})
	return h, res, mopts, err
}

// A JSON report is built as histcheck check builds it: one History per
// input, one Result per criterion, then Finish for the overall verdict.
// The schema is documented in docs/report-json.md.
func ExampleJSON() {
	h, res, mopts, err := checkStale()
	if err != nil {
		fmt.Println(err)
		return
	}
	// The time the check took varies from run to run; it is left out here
	// so that the output is always the same.
	res.Elapsed = 0

	hr := report.NewHistory("stale.hist", "register", h)
	hr.Init = report.InitJSON(mopts.Init)
	hr.Results = append(hr.Results, report.NewResult(h, res))
	rep := report.Report{Histories: []report.History{hr}}
	rep.Finish()
	if err := report.JSON(os.Stdout, &rep); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "version": 1,
	//   "valid": false,
	//   "histories": [
	//     {
	//       "file": "stale.hist",
	//       "model": "register",
	//       "init": 0,
	//       "nil_read": "value",
	//       "order": "times",
	//       "ops": 3,
	//       "ok": 3,
	//       "failed": 0,
	//       "unknown": 0,
	//       "processes": 3,
	//       "clients": 3,
	//       "ignored": 0,
	//       "results": [
	//         {
	//           "consistency": "linearizable",
	//           "valid": false,
	//           "violations": [
	//             {
	//               "ops": [
	//                 {
	//                   "index": 2,
	//                   "process": "C",
	//                   "f": "read",
	//                   "value": 0,
	//                   "call": 5,
	//                   "return": 7,
	//                   "type": "ok",
	//                   "label": "C:r(0)"
	//                 },
	//                 {
	//                   "index": 0,
	//                   "process": "A",
	//                   "f": "write",
	//                   "value": 1,
	//                   "call": 0,
	//                   "return": 10,
	//                   "type": "ok",
	//                   "label": "A:w(1)"
	//                 },
	//                 {
	//                   "index": 1,
	//                   "process": "B",
	//                   "f": "read",
	//                   "value": 1,
	//                   "call": 2,
	//                   "return": 4,
	//                   "type": "ok",
	//                   "label": "B:r(1)"
	//                 }
	//               ],
	//               "explanation": "The initial value 0 must stay in the register until C:r(0) was called (at 5), since it reads it; but 1, written only by A:w(1), can be in the register only at some instant from 2 to 4 (after B:r(1) was called, before B:r(1) returned), which is within that span",
	//               "pattern": "zone-inside-zone"
	//             }
	//           ],
	//           "method": "zones",
	//           "elapsed_ms": 0,
	//           "stats": {
	//             "states": 0,
	//             "memo_size": 0,
	//             "partitions": 1,
	//             "ops_checked": 3
	//           }
	//         }
	//       ]
	//     }
	//   ]
	// }
}

// The text form is what people read. A violation's core, the fewest
// operations that still fail, comes from checker/shrink.
func ExampleText() {
	h, res, mopts, err := checkStale()
	if err != nil {
		fmt.Println(err)
		return
	}
	r := report.NewResult(h, res)
	check := func(ctx context.Context, h *history.History) (checker.Result, error) {
		return linear.Check(ctx, model.NewRegister(mopts), h, linear.Options{})
	}
	core, err := shrink.Minimize(context.Background(), h, check, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	r.Violations[0].Core = report.NewCore(h, core)

	hr := report.NewHistory("stale.hist", "register", h)
	hr.Results = append(hr.Results, r)
	if err := report.Text(os.Stdout, &report.Report{Histories: []report.History{hr}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// stale.hist	linearizable	false
	//     violation (zone-inside-zone): B:r(1) [2, 4], C:r(0) [5, 7]; weakened: A:w(1) [0, 10]
	//       (zone-inside-zone: one value must stay in the register over a span of time that
	//       holds the only span in which another value read can be there)
	//       core: B:r(1), C:r(0); weakened: A:w(1)
	//       (weakened: kept in the core only as an operation of unknown outcome, which may
	//       have taken effect or not; the violation needs it to exist, not when it took
	//       effect)
	//         A |==== w(1) ================================================|  [0, 10]
	//         B             |== r(1) ===|                                     [2, 4]
	//         C                               |== r(0) ==|                    [5, 7]
	//       B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 5; yet
	//       C:r(0) read the old value 0. Only A:w(1) wrote 1, so once B:r(1) saw 1 the write
	//       had taken effect, and no later read may return 0.
}
