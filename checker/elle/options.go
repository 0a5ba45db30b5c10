package elle

import (
	"context"
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// Options tune an analysis. The three assumptions, named after Elle's
// rw-register options (:wfr-keys?, :sequential-keys?,
// :linearizable-keys?), let rw-register infer more of each key's version
// order than the initial state gives; like Elle's, they are off by
// default, since each is a claim about the database that the history
// alone does not show. list-append needs none: its reads show whole
// version orders.
type Options struct {
	// Budget bounds the cycle searches (0: DefaultBudget).
	Budget int64
	// WFRKeys assumes that within a transaction writes follow reads: a
	// transaction that read v from a key and then wrote v' to it puts v
	// before v'.
	WFRKeys bool
	// SequentialKeys assumes that each key is sequentially consistent on
	// its own: the transactions of one process see each key's versions in
	// version order, so the last version one of them read or wrote comes
	// before the first the process's next one to touch the key read or
	// wrote.
	SequentialKeys bool
	// LinearizableKeys assumes that each key is linearizable on its own:
	// as SequentialKeys, for transactions in real-time order (one
	// completed before the other was invoked).
	LinearizableKeys bool
}

// The assumptions' names, as Elle spells its options (without the
// question mark).
const (
	WFRKeys          = "wfr-keys"
	SequentialKeys   = "sequential-keys"
	LinearizableKeys = "linearizable-keys"
)

// Assumptions lists the assumptions an analysis can make, by name.
var Assumptions = []string{WFRKeys, SequentialKeys, LinearizableKeys}

// ParseAssumptions sets the assumptions named in o (unknown names are an
// error that lists the accepted ones).
func ParseAssumptions(names []string, o Options) (Options, error) {
	for _, n := range names {
		switch n {
		case WFRKeys:
			o.WFRKeys = true
		case SequentialKeys:
			o.SequentialKeys = true
		case LinearizableKeys:
			o.LinearizableKeys = true
		default:
			return o, fmt.Errorf("unknown assumption %q (accepted: %s)", n, strings.Join(Assumptions, ", "))
		}
	}
	return o, nil
}

// Analyze reads h's transactions and finds their anomalies, with no
// assumption. budget bounds the cycle searches (0: DefaultBudget).
func Analyze(ctx context.Context, h *history.History, w Workload, budget int64) (*Analysis, error) {
	return AnalyzeWith(ctx, h, w, Options{Budget: budget})
}
