package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// jepsenHistory reads events written "PROCESS TYPE F VALUE" (EDN).
func jepsenHistory(t *testing.T, events ...string) *history.History {
	t.Helper()
	var sb strings.Builder
	for i, e := range events {
		p := strings.SplitN(e, " ", 4)
		fmt.Fprintf(&sb, "{:process %s, :type :%s, :f :%s, :value %s, :time %d}\n", p[0], p[1], p[2], p[3], int64(i)*1_000_000)
	}
	h, err := format.Read("t.edn", strings.NewReader(sb.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestExplainJepsen says each kind of violation of Jepsen's checkers in
// words: which read, which elements, by how much.
func TestExplainJepsen(t *testing.T) {
	tests := []struct {
		model    string
		settings map[string]string
		events   []string
		pattern  string
		words    []string
	}{
		{jepsen.Counter, nil, []string{"0 invoke add 2", "0 ok add 2", "0 invoke read nil", "0 ok read 1"},
			"counter-out-of-bounds", []string{"returned 1, 1 below the lowest value it could read", "sum to 2", "sums to 2"}},
		{jepsen.Counter, nil, []string{"0 invoke add 2", "1 invoke read nil", "1 ok read 7"},
			"counter-out-of-bounds", []string{"returned 7, 5 above the highest", "sum to 0", "sums to 2"}},
		{jepsen.Set, nil, []string{"0 invoke add 1", "0 ok add 1", "0 invoke add 2", "0 ok add 2", "0 invoke read nil", "0 ok read [2]"},
			"set-lost", []string{"lacks 1 element whose add was acknowledged", "lost: 1"}},
		{jepsen.Set, nil, []string{"0 invoke read nil", "0 ok read [9]"},
			"set-unexpected", []string{"returned 1 element that no add attempted: 9"}},
		{jepsen.SetFull, nil, []string{"0 invoke add 1", "0 ok add 1", "0 invoke read nil", "0 ok read []"},
			"set-full-lost", []string{"1 element was lost", ": 1"}},
		{jepsen.SetFull, map[string]string{"linearizable": "true"}, []string{"0 invoke add 1", "0 ok add 1",
			"0 invoke read nil", "0 ok read []", "0 invoke read nil", "0 ok read [1]"},
			"set-full-stale", []string{"1 element was stale", "only 1 ms after"}},
		{jepsen.SetFull, nil, []string{"0 invoke add 1", "0 ok add 1", "0 invoke read nil", "0 ok read [1 1]"},
			"set-full-duplicated", []string{"1 (2 times)"}},
		{jepsen.Bank, nil, []string{"0 invoke read nil", "0 ok read {0 5 1 5}", "0 invoke read nil", "0 ok read {0 5 1 8}"},
			"bank-wrong-total", []string{"sum to 13, not the total of 10: 3 too much"}},
		{jepsen.Bank, nil, []string{"0 invoke read nil", "0 ok read {0 5 1 5}", "0 invoke read nil", "0 ok read {0 -2 1 12}"},
			"bank-negative-value", []string{"account 0 holds -2"}},
		{jepsen.Bank, nil, []string{"0 invoke read nil", "0 ok read {0 5 1 5}", "0 invoke read nil", "0 ok read {0 5 1 5 7 0}"},
			"bank-unexpected-key", []string{"1 account the first read did not: 7"}},
		{jepsen.Bank, nil, []string{"0 invoke read nil", "0 ok read {0 5 1 5}", "0 invoke read nil", "0 ok read {0 10 1 nil}"},
			"bank-nil-balance", []string{"no balance (nil) for 1 account: 1"}},
		{jepsen.LongFork, nil, []string{"0 invoke read [[:r 0 nil] [:r 1 nil]]", "0 ok read [[:r 0 1] [:r 1 nil]]",
			"1 invoke read [[:r 0 nil] [:r 1 nil]]", "1 ok read [[:r 0 nil] [:r 1 1]]"},
			"long-fork", []string{"the first saw the write of key 0", "the second saw the write of key 1"}},
		{jepsen.TotalQueue, nil, []string{"0 invoke enqueue 1", "0 ok enqueue 1", "0 invoke enqueue 2", "0 ok enqueue 2",
			"1 invoke dequeue nil", "1 ok dequeue 2"},
			"total-queue-lost", []string{"1 element was acknowledged as enqueued but never dequeued: 1"}},
		{jepsen.TotalQueue, nil, []string{"1 invoke dequeue nil", "1 ok dequeue 7"},
			"total-queue-unexpected", []string{"1 element was dequeued that no enqueue attempted: 7"}},
		{jepsen.UniqueIDs, nil, []string{"0 invoke generate nil", "0 ok generate 3", "1 invoke generate nil", "1 ok generate 3"},
			"unique-ids-duplicated", []string{"1 identifier was generated more than once: 3 (2 times)"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			h := jepsenHistory(t, tt.events...)
			res, err := jepsen.Check(context.Background(), tt.model, h, tt.settings, 0)
			if err != nil {
				t.Fatal(err)
			}
			r := NewResult(h, res)
			if len(r.Violations) != 1 || r.Violations[0].Pattern != tt.pattern {
				t.Fatalf("violations %+v", r.Violations)
			}
			for _, w := range tt.words {
				if !strings.Contains(r.Violations[0].Explanation, w) {
					t.Errorf("%q lacks %q", r.Violations[0].Explanation, w)
				}
			}
			if r.Jepsen == nil || r.Jepsen.Checker != tt.model || jepsenCounts(r.Jepsen) == "" {
				t.Errorf("counts %+v", r.Jepsen)
			}
		})
	}
}

// TestJepsenJSON: the counts are in the JSON report under Jepsen's
// names, and the text form prints them escaped.
func TestJepsenJSON(t *testing.T) {
	h := jepsenHistory(t, "0 invoke add \"\x1b[31m\"", "0 ok add \"\x1b[31m\"", "0 invoke read nil", "0 ok read []")
	res, err := jepsen.Check(context.Background(), jepsen.Set, h, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistory("t.edn", jepsen.Set, h)
	hr.Results = append(hr.Results, NewResult(h, res))
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"jepsen": {`, `"checker": "jepsen-set"`, `"lost_count": 1`, `"acknowledged_count": 1`, `"final_read": 2`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
	}
	var back Report
	dec := json.NewDecoder(&js)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil || back.Histories[0].Results[0].Jepsen.Set.LostCount != 1 {
		t.Errorf("decoding: %v", err)
	}
	var text bytes.Buffer
	if err := Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "\x1b") || !strings.Contains(text.String(), "lost 1") {
		t.Errorf("text:\n%s", text.String())
	}
}

// TestJepsenCompletionIndexes: where Jepsen's checkers name an operation
// by its completion (set-full's known, a long fork's reads, a bank
// error's read), the JSON report gives the completion's index: its own
// :index when the events carry one, else its place in the input.
func TestJepsenCompletionIndexes(t *testing.T) {
	// Jepsen's set-full flutter case: element 1 is known by the read
	// that completes at event 4 (invoked at 3), last missed by the read
	// invoked at 6.
	flutter := []string{"0 invoke add 0", "0 ok add 0", "1 invoke add 1", "2 invoke read nil",
		"2 ok read #{1}", "1 ok add 1", "2 invoke read nil", "3 invoke read nil", "3 ok read #{1}", "2 ok read #{0}"}
	fork := []string{"0 invoke read [[:r 0 nil] [:r 1 nil]]", "1 invoke read [[:r 0 nil] [:r 1 nil]]",
		"0 ok read [[:r 0 1] [:r 1 nil]]", "1 ok read [[:r 0 nil] [:r 1 1]]"}
	bank := []string{"0 invoke read nil", "0 ok read {0 5 1 5}", "0 invoke read nil", "1 invoke read nil",
		"1 ok read {0 5 1 5}", "0 ok read {0 5 1 8}"}
	tests := []struct {
		name   string
		model  string
		events []string
		offset int64 // an :index of offset+position on every event; -1 for none
		want   func(j *Jepsen) []int64
		wants  []int64
	}{
		{"set-full known and last absent", jepsen.SetFull, flutter, -1, func(j *Jepsen) []int64 {
			w := j.SetFull.WorstStale[0]
			return []int64{*w.Known, *w.LastAbsent}
		}, []int64{4, 6}},
		{"set-full with indexes", jepsen.SetFull, flutter, 100, func(j *Jepsen) []int64 {
			w := j.SetFull.WorstStale[0]
			return []int64{*w.Known, *w.LastAbsent}
		}, []int64{104, 106}},
		{"long fork", jepsen.LongFork, fork, -1, func(j *Jepsen) []int64 {
			return []int64{j.LongFork.Forks[0].A, j.LongFork.Forks[0].B}
		}, []int64{2, 3}},
		{"long fork with indexes", jepsen.LongFork, fork, 10, func(j *Jepsen) []int64 {
			return []int64{j.LongFork.Forks[0].A, j.LongFork.Forks[0].B}
		}, []int64{12, 13}},
		{"bank error", jepsen.Bank, bank, -1, func(j *Jepsen) []int64 {
			return []int64{j.Bank.FirstError.Index}
		}, []int64{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sb strings.Builder
			for i, e := range tt.events {
				p := strings.SplitN(e, " ", 4)
				fmt.Fprintf(&sb, "{:process %s, :type :%s, :f :%s, :value %s, :time %d", p[0], p[1], p[2], p[3], int64(i)*1_000_000)
				if tt.offset >= 0 {
					fmt.Fprintf(&sb, ", :index %d", tt.offset+int64(i))
				}
				sb.WriteString("}\n")
			}
			h, err := format.Read("t.edn", strings.NewReader(sb.String()), "")
			if err != nil {
				t.Fatal(err)
			}
			res, err := jepsen.Check(context.Background(), tt.model, h, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			j := NewResult(h, res).Jepsen
			if got := tt.want(j); fmt.Sprint(got) != fmt.Sprint(tt.wants) {
				t.Errorf("indexes %v, want %v", got, tt.wants)
			}
		})
	}
}

// TestViolationWithoutOps: a violation that names no operation (set-full's
// duplicates: an element returned twice by one read) has "ops": [] in
// JSON, the array the format documents, not null, and its text line ends
// with the pattern, not a colon before an empty list.
func TestViolationWithoutOps(t *testing.T) {
	h := jepsenHistory(t, "0 invoke add 1", "0 ok add 1", "1 invoke read nil", "1 ok read [1 1]")
	res, err := jepsen.Check(context.Background(), jepsen.SetFull, h, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistory("t.edn", jepsen.SetFull, h)
	hr.Results = append(hr.Results, NewResult(h, res))
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	var js, text bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Histories []struct {
			Results []struct {
				Violations []map[string]json.RawMessage `json:"violations"`
			} `json:"results"`
		} `json:"histories"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	vs := back.Histories[0].Results[0].Violations
	if len(vs) != 1 || string(vs[0]["ops"]) != "[]" || string(vs[0]["pattern"]) != `"set-full-duplicated"` {
		t.Errorf("JSON violations: %s", js.String())
	}
	if err := Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "violation (set-full-duplicated)\n") {
		t.Errorf("text:\n%s", text.String())
	}
}
