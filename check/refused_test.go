package check_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// readEDN reads a history from EDN text.
func readEDN(t *testing.T, text string) *history.History {
	t.Helper()
	r, err := format.ReadResult("h.edn", strings.NewReader(text), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r.History
}

// TestRunRefusedNamesEveryCriterion checks that wherever Run refuses a
// history (the model, its settings, the transactions, the criteria), the
// outcome is Refused with Run's error and holds an unknown verdict, marked
// NotChecked, for every criterion the run was to report: those asked for,
// else the model's default (strict serializability for list-append, not
// linearizability), and the anomalies asked for.
func TestRunRefusedNamesEveryCriterion(t *testing.T) {
	cas5 := readEDN(t, "{:process 0 :type :invoke :f :cas :value 5}\n{:process 0 :type :ok :f :cas :value 5}\n")
	dup := readEDN(t, "{:process 0 :type :invoke :f :txn :value [[:append :x 1]]}\n{:process 0 :type :ok :f :txn :value [[:append :x 1]]}\n"+
		"{:process 1 :type :invoke :f :txn :value [[:append :x 1]]}\n{:process 1 :type :ok :f :txn :value [[:append :x 1]]}\n")
	queue := readEDN(t, "{:process 0 :type :invoke :f :enq :value 1}\n{:process 0 :type :ok :f :enq :value 1}\n")
	x, y := history.StringValue("x"), history.StringValue("y")
	keyed, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Key: x, Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "write", Key: y, Value: history.IntValue(2), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		h    *history.History
		req  check.Request
		want []string // the criteria, in order
		err  string
		// decided are the criteria with a verdict found before the refusal.
		decided []string
	}{
		{"model compile", cas5, check.Request{Model: "cas-register"}, []string{checker.Linearizable}, "cas needs a value [from to], got 5", nil},
		{"model compile, several criteria", cas5, check.Request{Model: "cas-register", Criteria: []string{"sequential", "linearizable"}},
			[]string{checker.Sequential, checker.Linearizable}, "cas needs a value", nil},
		{"transactions, model given", dup, check.Request{Model: "list-append"}, []string{"strict-serializable"}, "appended to key x twice", nil},
		{"transactions, model detected", dup, check.Request{}, []string{"strict-serializable"}, "appended to key x twice", nil},
		{"transactions, anomalies only", dup, check.Request{Anomalies: []string{"G0"}}, []string{elle.AnomaliesCriterion}, "appended to key x twice", nil},
		{"transactions, level and anomalies", dup, check.Request{Criteria: []string{"serializable"}, Anomalies: []string{"G1c"}},
			[]string{"serializable", elle.AnomaliesCriterion}, "appended to key x twice", nil},
		{"transactions, all", dup, check.Request{Criteria: []string{check.All}}, elle.Levels, "appended to key x twice", nil},
		{"detection", queue, check.Request{}, []string{checker.Linearizable}, "cannot tell the model", nil},
		{"unknown model", cas5, check.Request{Model: "nope"}, []string{checker.Linearizable}, `"nope"`, nil},
		{"unknown criterion", cas5, check.Request{Model: "register", Criteria: []string{"strict", "linearizable"}},
			[]string{"strict", checker.Linearizable}, `unknown consistency criterion "strict"`, nil},
		{"unsupported criterion", cas5, check.Request{Model: "lease", Criteria: []string{"causal"}}, []string{checker.Causal}, "causal", nil},
		{"bad nil-read rule", cas5, check.Request{Model: "register", NilRead: "maybe"}, []string{checker.Linearizable}, `"maybe"`, nil},
		{"bad ttl", cas5, check.Request{Model: "lease", TTL: "-3"}, []string{checker.Linearizable}, "positive", nil},
		{"option of another model", cas5, check.Request{Model: "register", ModelOptions: []string{"group-size=2"}},
			[]string{checker.Linearizable}, "takes no options", nil},
		{"assumptions", cas5, check.Request{Model: "cas-register", Assume: []string{"wfr-keys"}}, []string{checker.Linearizable}, "no assumptions", nil},
		{"anomalies of a register", cas5, check.Request{Model: "register", Anomalies: []string{"G0"}}, []string{elle.AnomaliesCriterion}, "no anomalies", nil},
		{"not local, after a verdict", keyed, check.Request{Model: "x=register,y=register", Criteria: []string{"linearizable", "sequential"}},
			[]string{checker.Linearizable, checker.Sequential}, "not compositional", []string{checker.Linearizable}},
		{"no history", nil, check.Request{Model: "list-append"}, []string{"strict-serializable"}, "no history", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := check.Run(context.Background(), tc.h, tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one naming %q", err, tc.err)
			}
			if !errors.Is(out.Refused, err) {
				t.Errorf("Refused %v, want Run's error", out.Refused)
			}
			var got []string
			for _, r := range out.Results {
				if !slices.Contains(got, r.Criterion) {
					got = append(got, r.Criterion)
				}
				decided := slices.Contains(tc.decided, r.Criterion)
				if decided == r.NotChecked || !decided && r.Valid != checker.Unknown {
					t.Errorf("%s: %v, not checked %v", r.Criterion, r.Valid, r.NotChecked)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("criteria %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRefused checks the outcome of a history refused before Run (a file
// that could not be read): every criterion asked for, or the named model's
// default, or, for "all" without a model, every non-transactional
// criterion.
func TestRefused(t *testing.T) {
	cause := errors.New("cannot open")
	for _, tc := range []struct {
		req  check.Request
		want []string
	}{
		{check.Request{}, []string{checker.Linearizable}},
		{check.Request{Model: "list-append"}, []string{"strict-serializable"}},
		{check.Request{Model: "rw-register", Anomalies: []string{"G0"}}, []string{elle.AnomaliesCriterion}},
		{check.Request{Model: "jepsen-counter"}, []string{"jepsen"}},
		{check.Request{Criteria: []string{check.All}}, checker.AllCriteria},
		{check.Request{Model: "list-append", Criteria: []string{check.All}}, elle.Levels},
		{check.Request{Model: "nope", Criteria: []string{"pram", " ", "pram", "causal"}}, []string{checker.PRAM, checker.Causal}},
	} {
		out := check.Refused(tc.req, nil, cause)
		var got []string
		for _, r := range out.Results {
			got = append(got, r.Criterion)
			if r.Valid != checker.Unknown || !r.NotChecked {
				t.Errorf("%+v: %s is %v, not checked %v", tc.req, r.Criterion, r.Valid, r.NotChecked)
			}
		}
		if out.Refused != cause || !slices.Equal(got, tc.want) {
			t.Errorf("%+v: refused %v, criteria %v, want %v", tc.req, out.Refused, got, tc.want)
		}
	}
}
