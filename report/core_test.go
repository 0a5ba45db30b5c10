package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/shrink"
)

// TestTextbookCores checks the cores of H2 and H3 as the reports carry
// them: H2's is its three operations (B and C as recorded, A's write
// weakened), H3's its two, and the explanation tells the stale read.
func TestTextbookCores(t *testing.T) {
	cs := checkers(register0)
	tests := []struct {
		name, crit string
		ops, weak  []string
		text       []string
	}{
		{"h2", checker.Linearizable, []string{"B:r(1)", "C:r(0)"}, []string{"A:w(1)"}, []string{
			"      core: B:r(1), C:r(0); weakened: A:w(1)\n",
			"        A |==== w(1) ====",
			"      B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 6; yet\n" +
				"      C:r(0) read the old value 0. Only A:w(1) wrote 1, so once B:r(1) saw 1 the write\n" +
				"      had taken effect, and no later read may return 0.\n",
		}},
		{"h3", checker.Linearizable, []string{"A:w(1)", "A:r(0)"}, nil, []string{
			"      core: A:w(1), A:r(0)\n",
			"A:w(1) finished at 2 before A:r(0) began at 3 (same process), yet the read\n      returned 0, the value before the write.\n",
		}},
		{"h3", checker.Sequential, []string{"A:w(1)", "A:r(0)"}, nil, []string{
			"A:w(1) comes before A:r(0) in process A's order, yet the read returned 0, the\n      value before the write.\n",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.crit, func(t *testing.T) {
			hr := checked(t, tt.name+".hist", "register", textbook(t, tt.name), cs, tt.crit)
			res := hr.Results[0]
			if res.Valid != checker.False || len(res.Violations) == 0 || res.Violations[0].Core == nil {
				t.Fatalf("want a false verdict with a core, got %+v", res)
			}
			c := res.Violations[0].Core
			if got := labelsOf(c.Ops); strings.Join(got, " ") != strings.Join(tt.ops, " ") {
				t.Errorf("core ops %v, want %v", got, tt.ops)
			}
			if got := labelsOf(c.Weakened); strings.Join(got, " ") != strings.Join(tt.weak, " ") {
				t.Errorf("weakened %v, want %v", got, tt.weak)
			}
			if !c.Minimal || c.Size() != len(tt.ops)+len(tt.weak) {
				t.Errorf("minimal %v size %d", c.Minimal, c.Size())
			}
			var buf bytes.Buffer
			if err := Text(&buf, &Report{Histories: []History{hr}}); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.text {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("text lacks %q:\n%s", want, buf.String())
				}
			}
			if strings.Contains(buf.String(), "- ") {
				t.Errorf("facts printed without being asked for:\n%s", buf.String())
			}
			buf.Reset()
			if err := WriteText(&buf, &Report{Histories: []History{hr}}, TextOptions{Facts: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String(), "      - The checker's reason: ") {
				t.Errorf("facts missing with Facts set:\n%s", buf.String())
			}
		})
	}
}

func labelsOf(ops []Op) []string {
	var out []string
	for _, op := range ops {
		out = append(out, op.Label)
	}
	return out
}

// TestJSONCore checks the core's JSON form against the documented schema,
// strictly, and its required fields on the generic form.
func TestJSONCore(t *testing.T) {
	hr := checked(t, "h2.hist", "register", textbook(t, "h2"), checkers(register0), checker.Linearizable, checker.Sequential)
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	var buf bytes.Buffer
	if err := JSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := decodeStrict(t, buf.Bytes())
	c := got.Histories[0].Results[0].Violations[0].Core
	if c == nil || len(c.Ops) != 2 || len(c.Weakened) != 1 || !c.Minimal ||
		!strings.HasPrefix(c.Explanation, "B:r(1) read the new value 1") || !strings.Contains(c.Timeline, "|==") {
		t.Fatalf("decoded core = %+v", c)
	}
	if s := got.Histories[0].Results[0].Stats; s == nil || s.Partitions != 1 || s.OpsChecked != 3 {
		t.Errorf("linearizable stats = %+v", s)
	}
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	res := raw["histories"].([]any)[0].(map[string]any)["results"].([]any)
	v := res[0].(map[string]any)["violations"].([]any)[0].(map[string]any)
	core := v["core"].(map[string]any)
	requireFields(t, "core", core, "ops", "weakened", "minimal", "explanation", "timeline")
	requireFields(t, "stats", res[0].(map[string]any)["stats"].(map[string]any), "states", "memo_size", "partitions", "ops_checked")
	if _, ok := res[1].(map[string]any)["violations"]; ok {
		t.Errorf("the true sequential result has violations: %v", res[1])
	}
}

// TestNewCoreOutOfRange checks that positions a history does not have are
// left out rather than crash the report.
func TestNewCoreOutOfRange(t *testing.T) {
	h := textbook(t, "h3")
	c := NewCore(h, shrink.Core{Ops: []int{1, -1, 7, 0}, Weakened: []int{9}, Criterion: checker.Linearizable})
	if got := labelsOf(c.Ops); strings.Join(got, " ") != "A:w(1) A:r(0)" {
		t.Errorf("core ops = %v", got)
	}
	if c.Weakened == nil || len(c.Weakened) != 0 {
		t.Errorf("weakened = %#v, want an empty list", c.Weakened)
	}
	if c.Story() == "" || len(c.Facts()) < 3 || c.Minimal {
		t.Errorf("story %q facts %q minimal %v", c.Story(), c.Facts(), c.Minimal)
	}
}

// TestTextCoreKey checks that a core taken from another key than the
// violation's says so, and that one on the same key does not repeat it.
func TestTextCoreKey(t *testing.T) {
	for _, tc := range []struct {
		violation, core, want string
	}{
		{"0", "3", "core on key 3: "},
		{"3", "3", "core: "},
		{"", "", "core: "},
	} {
		c := &Core{Ops: []Op{{Label: "A:r(k, 1)"}}, Weakened: []Op{}, Minimal: true, Key: tc.core}
		r := &Report{Histories: []History{{File: "h", Results: []Result{{Consistency: checker.Linearizable, Valid: checker.False,
			Violations: []Violation{{Key: tc.violation, Ops: []Op{{Label: "A:r(k, 1)"}}, Core: c}}}}}}}
		var b strings.Builder
		if err := Text(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "    "+tc.want+"A:r(k, 1)") {
			t.Errorf("violation key %q, core key %q: want %q in\n%s", tc.violation, tc.core, tc.want, b.String())
		}
	}
}
