package jepsen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
)

// TestTotalQueue checks Jepsen's total-queue counts, multisets and
// verdict, on Jepsen's own cases and on drains and repeated elements.
func TestTotalQueue(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		valid  checker.Verdict
		// attempts acknowledged ok|lost|unexpected|duplicated|recovered
		want string
	}{
		{"empty", nil, checker.True, "0 0 0||||"},
		{"jepsen sane", []string{"1 invoke enqueue 1", "2 invoke enqueue 2", "2 ok enqueue 2", "3 invoke dequeue 1",
			"3 ok dequeue 1", "3 invoke dequeue 2", "3 ok dequeue 2"}, checker.True, "2 1 2||||1"},
		{"jepsen pathological", []string{"1 invoke enqueue :hung", "2 invoke enqueue :enqueued", "2 ok enqueue :enqueued",
			"3 invoke enqueue :dup", "3 ok enqueue :dup", "4 invoke dequeue", "5 invoke dequeue", "5 ok dequeue :wtf",
			"6 invoke dequeue", "6 ok dequeue :dup", "7 invoke dequeue", "7 ok dequeue :dup"},
			checker.False, "3 2 1|enqueued|wtf|dup|"},
		{"failed enqueue is attempted", []string{"0 invoke enqueue 1", "0 fail enqueue 1", "1 invoke dequeue", "1 ok dequeue 1"},
			checker.True, "1 0 1||||1"},
		{"multiset counts", []string{"0 invoke enqueue 1", "0 ok enqueue 1", "0 invoke enqueue 1", "0 ok enqueue 1",
			"0 invoke enqueue 2", "0 ok enqueue 2", "1 invoke dequeue", "1 ok dequeue 1", "1 invoke dequeue", "1 ok dequeue 2",
			"1 invoke dequeue", "1 ok dequeue 2"}, checker.False, "3 3 2|1||2|"},
		{"drain", []string{"0 invoke enqueue 1", "0 ok enqueue 1", "0 invoke enqueue 2", "0 ok enqueue 2",
			"1 invoke drain", "1 ok drain [1 2 3]", "1 invoke drain", "1 fail drain"}, checker.False, "2 2 2||3||"},
		{"drain of unknown outcome", []string{"0 invoke enqueue 1", "0 ok enqueue 1", "1 invoke drain", "1 info drain"},
			checker.Unknown, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := emptyHistory(t)
			if len(tt.events) > 0 {
				h = edn(t, tt.events...)
			}
			res := run(t, jepsen.TotalQueue, h, nil)
			if res.Valid != tt.valid {
				t.Fatalf("valid %v, want %v (%s)", res.Valid, tt.valid, res.Reason)
			}
			if tt.valid == checker.Unknown {
				if !strings.Contains(res.Reason, "drain") {
					t.Errorf("reason %q", res.Reason)
				}
				return
			}
			q := res.Jepsen.Queue
			got := fmt.Sprintf("%d %d %d|%s|%s|%s|%s", len(q.Attempts), len(q.Enqueued), len(q.OK),
				vals(q.Lost), vals(q.Unexpected), vals(q.Duplicated), vals(q.Recovered))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			var patterns []string
			for _, v := range res.Violations {
				patterns = append(patterns, v.Pattern)
				if len(v.Ops) == 0 {
					t.Errorf("%s names no operation", v.Pattern)
				}
			}
			wantPatterns := []string{}
			if len(q.Lost) > 0 {
				wantPatterns = append(wantPatterns, "total-queue-lost")
			}
			if len(q.Unexpected) > 0 {
				wantPatterns = append(wantPatterns, "total-queue-unexpected")
			}
			if fmt.Sprint(patterns) != fmt.Sprint(wantPatterns) {
				t.Errorf("violations %v, want %v", patterns, wantPatterns)
			}
		})
	}
}

// TestUniqueIDs checks Jepsen's unique-ids counts, range and verdict,
// and that at most 48 duplicated identifiers are listed, the most
// frequent, by identifier.
func TestUniqueIDs(t *testing.T) {
	many := []string{}
	for id := range 50 {
		// identifier id returned twice; 7 and 30 three times.
		n := 2
		if id == 7 || id == 30 {
			n = 3
		}
		for range n {
			many = append(many, "0 invoke generate", fmt.Sprintf("0 ok generate %d", id))
		}
	}
	tests := []struct {
		name   string
		events []string
		valid  checker.Verdict
		want   string // attempted acknowledged duplicated-count [lowest highest] duplicated
	}{
		{"empty", nil, checker.True, "0 0 0 [ ] "},
		{"jepsen dups", []string{"0 invoke generate", "0 ok generate 0", "1 invoke generate", "1 ok generate 1",
			"2 invoke generate", "2 ok generate 0", "3 invoke generate", "3 ok generate 0", "4 invoke generate", "4 info generate"},
			checker.False, "5 4 1 [0 1] 0:3"},
		{"no duplicate", []string{"0 invoke generate", "0 ok generate 5", "0 invoke generate", "0 fail generate",
			"0 invoke generate", "0 ok generate 2"}, checker.True, "3 2 0 [2 5] "},
		// 50 duplicated; the 48 listed are the two seen three times and,
		// of those seen twice, the greatest identifiers (Jepsen sorts by
		// count and takes from the top): 0 and 1 are left out.
		{"at most 48", many, checker.False, "102 102 50 [0 49] " + func() string {
			var parts []string
			for id := 2; id < 50; id++ {
				n := 2
				if id == 7 || id == 30 {
					n = 3
				}
				parts = append(parts, fmt.Sprintf("%d:%d", id, n))
			}
			return strings.Join(parts, " ")
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := emptyHistory(t)
			if len(tt.events) > 0 {
				h = edn(t, tt.events...)
			}
			res := run(t, jepsen.UniqueIDs, h, nil)
			if res.Valid != tt.valid {
				t.Fatalf("valid %v, want %v", res.Valid, tt.valid)
			}
			u := res.Jepsen.IDs
			var dups []string
			for _, d := range u.Duplicated {
				dups = append(dups, fmt.Sprintf("%s:%d", d.Element, d.Count))
			}
			lo, hi := "", ""
			if !u.Lowest.IsNone() {
				lo, hi = u.Lowest.String(), u.Highest.String()
			}
			got := fmt.Sprintf("%d %d %d [%s %s] %s", u.Attempted, u.Acknowledged, u.DuplicatedCount, lo, hi, strings.Join(dups, " "))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if (len(res.Violations) == 1) != (tt.valid == checker.False) {
				t.Errorf("violations %+v", res.Violations)
			}
			for _, v := range res.Violations {
				// Every generate that returned a duplicated id, up to 8.
				if want := min(8, 2*len(u.Duplicated)+strings.Count(got, ":3")); len(v.Ops) != want {
					t.Errorf("violation names %d operations, want %d", len(v.Ops), want)
				}
			}
		})
	}
}
