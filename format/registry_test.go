package format

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sniffName is what detection by content names, or "".
func sniffName(head []byte) string {
	if f := byContent(head); f != nil {
		return f.Name
	}
	return ""
}

// headPieces are fragments of every encoding, glued at random into heads
// that lie on the borders between formats.
var headPieces = []string{
	"", " ", "\n", "\r\n", ",", "\t", "# a comment\n", "#", "#{", "#_ ", ";", "; note\n",
	"(", ")", "[", "]", "{", "}", "[[", "{:process 0, :type :invoke}", ":type :invoke", " :f",
	`{"process": 0, "type": "invoke", "f": "read"}`, `{"a": 1}`, "\n{", `"history": [`,
	"A: w(1) [0, 10]", "B: r->0 [2, 4]", "x: cas(1, 2) [", "C : r(x)->1 [4, 5]",
	"INFO  jepsen.util - 0 :invoke :read nil", "INFO jepsen.util - 3\t:ok :write 2",
	"2017-01-01 INFO", "model: register\n", "init: 0\n", "→", "é", "1", "null", "nil",
}

// TestDetectionAgrees checks that the formats' own sniffers, taken
// together, tell the same format as the single decision they replaced, on
// the test inputs of this package and on random heads.
func TestDetectionAgrees(t *testing.T) {
	var heads [][]byte
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "histories", "*", "*"))
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		heads = append(heads, b[:min(len(b), sniffLimit)])
	}
	rng := rand.New(rand.NewSource(18))
	for i := 0; i < 20000; i++ {
		var sb strings.Builder
		for n := rng.Intn(6); n >= 0; n-- {
			sb.WriteString(headPieces[rng.Intn(len(headPieces))])
		}
		heads = append(heads, []byte(sb.String()))
	}
	seen := map[string]int{}
	for _, h := range heads {
		got, want := sniffName(h), sniffReference(h)
		seen[want]++
		if got != want {
			t.Errorf("head %q: detected %q, want %q", h, got, want)
		}
	}
	// The random heads must reach every detectable format and none.
	for _, name := range []string{"", JSON, JSONL, EDN, JepsenLog, Notation} {
		if seen[name] == 0 {
			t.Errorf("no head detected as %q; the test does not cover it", name)
		}
	}
}

// TestRegistry checks the list of formats: names unique, every extension
// naming one format, writers where Write promises them.
func TestRegistry(t *testing.T) {
	names := map[string]bool{}
	exts := map[string]string{}
	for _, f := range All() {
		if f.Name == "" || f.Summary == "" || f.Read == nil {
			t.Errorf("format %+v lacks a name, summary or reader", f)
		}
		if names[f.Name] {
			t.Errorf("format %s listed twice", f.Name)
		}
		names[f.Name] = true
		for _, e := range f.Extensions {
			if !strings.HasPrefix(e, ".") || strings.ToLower(e) != e {
				t.Errorf("format %s: extension %q is not a lower-case .ext", f.Name, e)
			}
			if other, ok := exts[e]; ok {
				t.Errorf("extension %s names both %s and %s", e, other, f.Name)
			}
			exts[e] = f.Name
		}
	}
	if got := strings.Join(Formats(), ","); got != "json,jsonl,ops,tuples,edn,jepsen-log,jepsen-txt,notation,plume,awdit-test,dbcop,dbcop-hist,dbcop-bincode,cobra" {
		t.Errorf("Formats() = %s", got)
	}
	if got := strings.Join(Writable(), ","); got != "json,jsonl,edn,plume,awdit-test,dbcop,dbcop-hist,dbcop-bincode" {
		t.Errorf("Writable() = %s", got)
	}
	for ext, want := range map[string]string{"x.JSON": JSON, "a/b.ndjson": JSONL, "r.edn": EDN, "j.log": JepsenLog, "h.hist": Notation, "history.bincode": DBCopBincode, "t.txt": "", "noext": ""} {
		got := ""
		if f := byExtension(ext); f != nil {
			got = f.Name
		}
		if got != want {
			t.Errorf("byExtension(%q) = %q, want %q", ext, got, want)
		}
	}
	if _, ok := Lookup("yaml"); ok {
		t.Error("Lookup(yaml) found a format")
	}
	f, _ := Lookup(JSON)
	f.Extensions[0] = ".changed"
	if g, _ := Lookup(JSON); g.Extensions[0] != ".json" {
		t.Error("changing what Lookup returned changed the list of formats")
	}
}

// TestReadResult checks what reading says about the input: the format
// read, how it was chosen, and whether it held Jepsen events.
func TestReadResult(t *testing.T) {
	events := `[{"process": 0, "type": "invoke", "f": "read", "value": null, "time": 1},
 {"process": 0, "type": "ok", "f": "read", "value": 0, "time": 2}]`
	tests := []struct {
		name, forced, src string
		format            string
		how               How
		events, timed     bool
	}{
		{"h.json", "", events, JSON, ByExtension, true, true},
		{"<stdin>", "", events, JSON, ByContent, true, true},
		{"h.json", "", `[{"process": "A", "f": "w", "value": 1, "call": 0, "return": 5}]`, Ops, ByExtension, false, true},
		{"h.json", "", `{"model": "register", "history": [["A", "w", 1, 0, 5]]}`, Tuples, ByExtension, false, true},
		{"x", Ops, `[{"process": "A", "f": "w", "value": 1, "call": 0, "return": 5}]`, Ops, Named, false, true},
		{"x", JSON, `{"process": 0, "type": "invoke", "f": "read"}
{"process": 0, "type": "ok", "f": "read", "value": 1}`, JSON, Named, true, false},
		{"<stdin>", "", `{"process": 0, "type": "invoke", "f": "read"}
{"process": 0, "type": "ok", "f": "read", "value": 1}`, JSONL, ByContent, true, false},
		{"r.edn", "", `[{:process 0, :type :invoke, :f :read} {:process 0, :type :ok, :f :read, :value 1}]`, EDN, ByExtension, true, false},
		{"<stdin>", "", "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t1\n", JepsenLog, ByContent, true, false},
		{"h.hist", "", "A: w(1) [0, 10]\n", Notation, ByExtension, false, true},
		{"<stdin>", "", "# one write\nA: w(1) [0, 10]\n", Notation, ByContent, false, true},
	}
	for _, tt := range tests {
		res, err := ReadResult(tt.name, strings.NewReader(tt.src), Options{Format: tt.forced})
		if err != nil {
			t.Errorf("%s %q: %v", tt.name, tt.src, err)
			continue
		}
		if res.Format != tt.format || res.Chosen != tt.how || res.Events != tt.events || res.History.Timed != tt.timed {
			t.Errorf("%s %q: read as %s (%s), events %v, timed %v; want %s (%s), %v, %v", tt.name, tt.src,
				res.Format, res.Chosen, res.Events, res.History.Timed, tt.format, tt.how, tt.events, tt.timed)
		}
	}
	if res, err := ReadResult("h.json", strings.NewReader("[1"), Options{}); err == nil || res.History != nil || res.Format != "" {
		t.Errorf("a bad input gave %+v, %v; want an empty result and an error", res, err)
	}
}

// FuzzDetectionAgrees compares detection with the single decision it
// replaced on any head.
func FuzzDetectionAgrees(f *testing.F) {
	for _, p := range headPieces {
		f.Add([]byte(p))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		head = head[:min(len(head), sniffLimit)]
		if got, want := sniffName(head), sniffReference(head); got != want {
			t.Errorf("head %q: detected %q, want %q", head, got, want)
		}
	})
}
