package regdp

import (
	"context"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// MaxCands exposes the bound on values waiting at once to the external tests.
const MaxCands = maxCands

// CheckNarrow is Check with the compare-and-set sweep's narrow pass
// bounded to width configurations per frontier and gap per gap (0: no
// narrow pass), where it stops confirmed by windows of the spans given,
// then the exact pass when exact is set.
func CheckNarrow(ctx context.Context, h *history.History, opts Options, width, gap int, windows []int, exact bool) (checker.Result, error) {
	return check(ctx, h, opts, casPasses{narrow: narrowing{width: width, gap: gap}, windows: windows, exact: exact})
}
