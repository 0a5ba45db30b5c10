package report_test

import (
	"context"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/adtref"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// TestFactsOfRandomHistories draws small histories of the register, cas,
// key-value and lock models, checks each under every criterion its model
// has, and reads every violation's report back: each fact stated must
// hold in the history (the fact checker), each label must name one
// operation, no operation outside those the violation names may be
// named, and no explanation may hold another's sentence. Every
// explanation pattern the histories give is counted, and the patterns
// listed below must each turn up.
func TestFactsOfRandomHistories(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 150
	}
	r := rand.New(rand.NewPCG(32, 32))
	models := []string{"register", "cas-register", "kv", "mutex", "lock"}
	patterns := make(map[string]int)
	seen := make(map[string]int)
	for i := 0; i < n; i++ {
		name := models[i%len(models)]
		h, opts, err := adtref.Generate(r, name)
		if err != nil {
			t.Fatal(err)
		}
		req := check.Request{Name: "random", Model: name, Criteria: []string{check.All}, Init: opts.Init}
		if opts.NilRead == model.NilIsAny {
			req.NilRead = "any"
		}
		out, err := check.Run(context.Background(), h, req)
		if err != nil {
			continue // a history the model refuses says nothing of explanations
		}
		hr := report.NewHistoryOf("random", h, out)
		es, err := violationsOf(h, hr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, res := range hr.Results {
			for _, v := range res.Violations {
				p := v.Pattern
				if p == "" {
					p = "(search)"
				}
				patterns[res.Consistency+" "+p]++
			}
		}
		for _, e := range es {
			bad := e.checkFacts(seen)
			bad = append(bad, e.outsiders()...)
			bad = append(bad, nested(e.text)...)
			if len(bad) > 0 {
				t.Errorf("%s history %d:\n%s\n%s\n%s", name, i, strings.Join(bad, "\n"), e.text, opsText(h))
			}
		}
	}
	for _, f := range []string{"ran from", "finished before began", "process order", "read, which only", "read the new value",
		"weakened, recorded", "written only by", "lock count", "no operation here wrote"} {
		if seen[f] == 0 {
			t.Errorf("no explanation stated a fact of the shape %q", f)
		}
	}
	var ps []string
	for p, c := range patterns {
		ps = append(ps, p+": "+strconv.Itoa(c))
	}
	sort.Strings(ps)
	t.Logf("patterns: %s", strings.Join(ps, "; "))
	t.Logf("facts checked: %v", seen)
}

// outsiders lists the operations an explanation names that the violation
// does not (a label of the history's, outside the violation's operations).
func (e *explained) outsiders() []string {
	text, _ := e.marked()
	in := make(map[int]bool)
	for _, p := range e.ops {
		in[p] = true
	}
	mine := make(map[string]bool)
	for _, p := range e.ops {
		mine[e.h.Ops[p].Label()] = true
	}
	var out []string
	for i, l := range e.all {
		if in[i] || mine[l] || !strings.Contains(text, l) {
			continue
		}
		re := regexp.MustCompile(`(^|[^\pL\pN_])` + regexp.QuoteMeta(l))
		if re.MatchString(text) {
			out = append(out, "names "+l+", which the violation does not")
		}
	}
	return out
}

// nested lists the sentences of text that hold another explanation's.
func nested(text string) []string {
	story, _, _ := strings.Cut(text, "\n- ")
	var out []string
	if strings.Contains(story, "the furthest any order gets") {
		out = append(out, "the story pastes the checker's reason into a sentence of its own")
	}
	if c := strings.Count(strings.ToLower(story), "no order of"); c > 1 {
		out = append(out, "the story says 'no order of' more than once")
	}
	return out
}

// opsText writes h's operations, for a failure's message.
func opsText(h *history.History) string {
	var sb strings.Builder
	for i := range h.Ops {
		o := &h.Ops[i]
		sb.WriteString(o.Label() + " " + history.Quote(o.Status.String()) + " [" + strconv.Itoa(int(o.Call)) + ", " + strconv.Itoa(int(o.Return)) + "]\n")
	}
	return sb.String()
}

// TestEveryPatternExplained: every violation of the random histories has
// an explanation, whatever its pattern.
func TestEveryPatternExplained(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 32))
	for i := 0; i < 100; i++ {
		name := []string{"register", "kv", "lock"}[i%3]
		h, opts, err := adtref.Generate(r, name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := check.Run(context.Background(), h, check.Request{Model: name, Criteria: []string{check.All}, Init: opts.Init})
		if err != nil {
			continue
		}
		hr := report.NewHistoryOf("random", h, out)
		for _, res := range hr.Results {
			for _, v := range res.Violations {
				if strings.TrimSpace(v.Explanation) == "" {
					t.Errorf("%s %s: a %q violation has no explanation:\n%s", name, res.Consistency, v.Pattern, opsText(h))
				}
			}
		}
	}
}
