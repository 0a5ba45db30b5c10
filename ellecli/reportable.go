package ellecli

import (
	"strings"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
)

// Elle reports, of the anomalies asked for with --anomalies, those named
// and their expansions (G2 takes in G-single and G1c, G1 takes in G1a,
// G1b and G1c, G1c takes in G0), plus every anomaly worse than one of
// those in its order of anomalies (a G0 is worse than a G1c, a data G2
// than a G0-process). histcheck's own --anomalies is wider: it counts
// every anomaly that is an instance of one asked for, so that a cycle
// without process edges counts as a G-single-process too. elle-cli's
// verdict follows Elle.

// elleExpands are Elle's expansions of an anomaly asked for.
var elleExpands = map[string][]string{
	"G2": {"G-single", "G1c", "G-nonadjacent"}, "G-single": {"G1c"},
	"G1": {"G1a", "G1b", "G1c"}, "G1c": {"G0"},
}

// elleWorse maps an anomaly to those Elle ranks as worse, which imply it.
var elleWorse = map[string][]string{
	"G1c": {"G0"}, "G1c-process": {"G0-process"}, "G1c-realtime": {"G0-realtime"},
	"G-single": {"G1c"}, "G2-item": {"G1c"},
	"G-single-process": {"G1c-process"}, "G2-item-process": {"G1c-process"},
	"G-single-realtime": {"G1c-realtime"}, "G2-item-realtime": {"G1c-realtime"},
	"G0-process": {"G2"}, "G0-realtime": {"G2-process"},
}

// reportable is the set of anomaly names Elle reports when asked for as:
// their expansions first, then everything worse than those.
func reportable(as []string) map[string]bool {
	out := map[string]bool{}
	closeOver(out, as, func(a string) []string {
		base, suffix := splitSuffix(a)
		var xs []string
		for _, x := range elleExpands[base] {
			xs = append(xs, x+suffix)
		}
		return xs
	})
	expanded := make([]string, 0, len(out))
	for a := range out {
		expanded = append(expanded, a)
	}
	closeOver(out, expanded, func(a string) []string { return elleWorse[a] })
	return out
}

// closeOver adds to set the names in from and, transitively, what next
// gives for each.
func closeOver(set map[string]bool, from []string, next func(string) []string) {
	stack := append([]string(nil), from...)
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, x := range next(a) {
			if !set[x] {
				stack = append(stack, x)
			}
		}
		set[a] = true
	}
}

// splitSuffix splits "-process" or "-realtime" off an anomaly's name.
func splitSuffix(a string) (base, suffix string) {
	for _, s := range []string{"-process", "-realtime"} {
		if strings.HasSuffix(a, s) {
			return strings.TrimSuffix(a, s), s
		}
	}
	return a, ""
}

// elleName is an anomaly's name without "-item": Elle's list-append and
// rw-register name their cycles G-single-item, G2-item and so on, and
// match them against the classes asked for by the class.
func elleName(a string) string {
	return strings.Replace(a, "-item", "", 1)
}

// notElle are anomalies histcheck reports that Elle does not look for:
// elle-cli's verdicts and anomaly types leave them out.
var notElle = map[string]bool{"fractured-read": true}

// emptyGraph says whether Elle would report empty-transaction-graph for
// the whole check: Elle builds one graph for every model and anomaly
// asked for, which is empty only when each criterion's graph is.
func emptyGraph(results []string) bool {
	for _, r := range results {
		if !strings.HasPrefix(r, elle.EmptyTransactionGraph) {
			return false
		}
	}
	return len(results) > 0
}

// anomaliesVerdict is the verdict on the anomalies asked for, as Elle
// gives it: false only for an anomaly Elle reports when asked for as (or,
// for a level, one Elle looks for); unknown for the empty transaction
// graph only when the whole check's graph is empty (empty).
func anomaliesVerdict(res check.Result, as []string, empty bool) checker.Verdict {
	onlyEmpty := strings.HasPrefix(res.Reason, elle.EmptyTransactionGraph)
	if res.Valid == checker.Unknown && onlyEmpty && !empty {
		return checker.True
	}
	if res.Valid != checker.False {
		return res.Valid
	}
	var want map[string]bool
	if res.Criterion == elle.AnomaliesCriterion {
		want = reportable(as)
	}
	for _, v := range res.Violations {
		if notElle[v.Pattern] {
			continue
		}
		if want == nil || want[v.Pattern] || want[elleName(v.Pattern)] {
			return checker.False
		}
	}
	if onlyEmpty && empty {
		// Nothing Elle reports was found, and no dependency was inferred.
		return checker.Unknown
	}
	return checker.True
}
