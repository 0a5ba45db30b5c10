package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// peersDir holds the test cases ported from the peers' own test suites
// (testdata/peers/README.md describes the layout).
var peersDir = filepath.Join("..", "testdata", "peers")

// peersEnv names a further folder of cases laid out the same way, run
// beside peersDir's: a set of cases kept apart from the repository.
const peersEnv = "HISTCHECK_PEERS"

// peerCase is one entry of a cases.json: a history, the histcheck command
// that checks it, and what that command must answer.
type peerCase struct {
	Name   string   `json:"name"`
	Source string   `json:"source"`
	File   string   `json:"file"`
	Args   []string `json:"args"`
	Want   *peerOut `json:"want"`
	// Differs is why histcheck's answer (Want) is right where the peer's
	// (Peer) differs; Peer is a record, not compared.
	Differs string   `json:"differs,omitempty"`
	Peer    *peerOut `json:"peer,omitempty"`
	// Pending names the known cause why histcheck does not yet answer
	// Want: the case is expected to fail until that cause is fixed.
	Pending string `json:"pending,omitempty"`
	Note    string `json:"note,omitempty"`
}

// verdictWant is a verdict as a case gives it: "true", "false" or
// "unknown", or the JSON booleans.
type verdictWant string

func (v *verdictWant) UnmarshalJSON(b []byte) error {
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	switch x := x.(type) {
	case bool:
		*v = verdictWant(strconv.FormatBool(x))
	case string:
		*v = verdictWant(x)
	default:
		return fmt.Errorf("verdict %s is not true, false or \"unknown\"", b)
	}
	return nil
}

// peerOut is what a command answers, each part compared only when given.
type peerOut struct {
	Exit           *int                       `json:"exit,omitempty"`
	Valid          *verdictWant               `json:"valid,omitempty"`
	Verdicts       map[string]verdictWant     `json:"verdicts,omitempty"`
	Anomalies      []string                   `json:"anomalies,omitempty"`
	AnomalyCounts  map[string]int             `json:"anomaly_counts,omitempty"`
	Fields         map[string]json.RawMessage `json:"fields,omitempty"`
	StdoutContains []string                   `json:"stdout_contains,omitempty"`
	StderrContains []string                   `json:"stderr_contains,omitempty"`
}

func (o *peerOut) empty() bool {
	return o == nil || o.Exit == nil && o.Valid == nil && o.Verdicts == nil && o.Anomalies == nil && o.AnomalyCounts == nil &&
		o.Fields == nil && o.StdoutContains == nil && o.StderrContains == nil
}

// TestPeers runs every case of every cases.json under testdata/peers (and
// under $HISTCHECK_PEERS when set) and compares histcheck's answer with
// the case's want. A case marked pending must still fail; once it passes
// the mark is stale and the test says so.
func TestPeers(t *testing.T) {
	roots := []string{peersDir}
	if extra := os.Getenv(peersEnv); extra != "" {
		roots = append(roots, extra)
	}
	found := 0
	for _, root := range roots {
		for _, file := range casesFiles(t, root) {
			rel, err := filepath.Rel(root, filepath.Dir(file))
			if err != nil {
				t.Fatal(err)
			}
			found++
			t.Run(filepath.ToSlash(rel), func(t *testing.T) { runCasesFile(t, file) })
		}
	}
	if found == 0 {
		t.Fatalf("no cases.json under %v", roots)
	}
}

// casesFiles lists the cases.json files under root.
func casesFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "cases.json" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	sort.Strings(files)
	return files
}

// runCasesFile checks one cases.json: well formed, names unique, every
// history file beside it used by some case, then each case as a subtest.
func runCasesFile(t *testing.T, file string) {
	cases, err := readCases(file)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	used := map[string]bool{}
	for _, c := range cases {
		used[filepath.Clean(c.File)] = true
	}
	if orphans := unusedFiles(dir, used); len(orphans) > 0 {
		t.Errorf("%s: files no case uses: %v", dir, orphans)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { runPeerCase(t, dir, c) })
	}
}

// readCases reads and validates a cases.json; unknown fields are errors,
// so that a misspelt expectation cannot pass unnoticed.
func readCases(file string) ([]peerCase, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var cases []peerCase
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", file)
	}
	names := map[string]bool{}
	for i, c := range cases {
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("%s: case %d (%q): %w", file, i, c.Name, err)
		}
		if names[c.Name] {
			return nil, fmt.Errorf("%s: case name %q used twice", file, c.Name)
		}
		names[c.Name] = true
	}
	return cases, nil
}

func (c peerCase) validate() error {
	switch {
	case c.Name == "":
		return errors.New("no name")
	case c.Source == "":
		return errors.New("no source")
	case c.File == "":
		return errors.New("no file")
	case len(c.Args) == 0 || c.Args[0] != "check" && c.Args[0] != "elle-cli":
		return errors.New(`args must start with "check" or "elle-cli"`)
	case c.Want.empty():
		return errors.New("want states nothing to compare")
	case (c.Differs == "") != (c.Peer == nil):
		return errors.New(`"differs" and "peer" go together`)
	}
	for _, v := range append(c.Want.verdictStrings(), c.Peer.verdictStrings()...) {
		if v != "true" && v != "false" && v != "unknown" {
			return fmt.Errorf("verdict %q is not true, false or unknown", v)
		}
	}
	return nil
}

func (o *peerOut) verdictStrings() []string {
	if o == nil {
		return nil
	}
	var vs []string
	if o.Valid != nil {
		vs = append(vs, string(*o.Valid))
	}
	for _, v := range o.Verdicts {
		vs = append(vs, string(v))
	}
	return vs
}

// unusedFiles lists the files in dir (recursively, but for folders with
// a cases.json of their own) that no case names, besides cases.json and
// READMEs.
func unusedFiles(dir string, used map[string]bool) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// A folder with cases of its own is checked on its own.
			if _, err := os.Stat(filepath.Join(path, "cases.json")); err == nil && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Name() == "cases.json" || strings.HasSuffix(d.Name(), ".md") || used[rel] || usedUnder(rel, used) {
			return nil
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// usedUnder reports whether rel lies inside a folder a case names (a
// Jepsen test directory).
func usedUnder(rel string, used map[string]bool) bool {
	for u := range used {
		if strings.HasPrefix(rel, u+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// peerGot is what one case's command answered.
type peerGot struct {
	exit      int
	valid     string
	verdicts  map[string]string
	anomalies []string
	counts    map[string]int
	report    any
	stdout    string
	stderr    string
}

func runPeerCase(t *testing.T, dir string, c peerCase) {
	path := c.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("history file: %v", err)
	}
	got, run := runPeerCommand(c, path)
	problems := comparePeer(c.Want, got)
	switch {
	case c.Pending != "" && len(problems) == 0:
		t.Errorf("pending case now passes, remove pending (%q)\nargs: %q", c.Pending, run)
	case c.Pending != "":
		t.Skipf("pending (%s): %s", c.Pending, strings.Join(problems, "; "))
	case len(problems) > 0:
		want, _ := json.Marshal(c.Want)
		t.Errorf("%s (%s)\nargs: %q\nwant: %s\n%s\nstdout:\n%s\nstderr:\n%s", c.Name, c.Source, run,
			want, strings.Join(problems, "\n"), clip(got.stdout), clip(got.stderr))
	}
}

// runPeerCommand runs the case's command on path: once with JSON output
// for the structured answer and, when the case asks for the plain
// output's text (or elle-cli's line), once as written.
func runPeerCommand(c peerCase, path string) (peerGot, []string) {
	cmd := c.Args[0]
	plain := append(slices.Clone(c.Args), path)
	structured := plain
	if !hasOutputFlag(cmd, c.Args) {
		flag := "-o"
		if cmd == "elle-cli" {
			flag = "--output"
		}
		structured = append(slices.Clone(c.Args), flag, "json", path)
	}
	var got peerGot
	var out, errb bytes.Buffer
	got.exit = Main(structured, nil, &out, &errb)
	got.stdout, got.stderr = out.String(), errb.String()
	got.readJSON(cmd, out.Bytes())
	needPlain := cmd == "elle-cli" || c.Want.StdoutContains != nil
	if !needPlain || reflect.DeepEqual(plain, structured) {
		return got, structured
	}
	out.Reset()
	errb.Reset()
	got.exit = Main(plain, nil, &out, &errb)
	got.stdout, got.stderr = out.String(), errb.String()
	if cmd == "elle-cli" {
		got.valid = elleCLIVerdict(got.stdout)
	}
	return got, plain
}

// hasOutputFlag reports whether args already choose an output form.
func hasOutputFlag(cmd string, args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case cmd == "check" && (name == "-o" || name == "--output"),
			cmd == "elle-cli" && (name == "-v" || name == "--output" || name == "--verbose"):
			return true
		}
	}
	return false
}

// readJSON takes the structured answer from a JSON report: check's
// report, or elle-cli's object for its one file.
func (g *peerGot) readJSON(cmd string, b []byte) {
	if json.Unmarshal(b, &g.report) != nil {
		g.report = nil
		return
	}
	obj, _ := g.report.(map[string]any)
	var results []any
	if cmd == "elle-cli" {
		g.valid = verdictString(obj["valid?"])
		g.anomalies = stringsOf(obj["anomaly-types"])
		results = listOf(obj["results"])
	} else {
		g.valid = verdictString(obj["valid"])
		for _, h := range listOf(obj["histories"]) {
			results = append(results, listOf(mapOf(h)["results"])...)
		}
	}
	g.verdicts = map[string]string{}
	g.counts = map[string]int{}
	seen := map[string]bool{}
	for _, r := range results {
		res := mapOf(r)
		name, _ := res["consistency"].(string)
		g.verdicts[name] = worstVerdict(g.verdicts[name], verdictString(res["valid"]))
		for _, v := range listOf(res["violations"]) {
			// The same violation found for several criteria counts once.
			p, _ := mapOf(v)["pattern"].(string)
			e, _ := mapOf(v)["explanation"].(string)
			if p == "" || seen[p+"\x00"+e] {
				continue
			}
			seen[p+"\x00"+e] = true
			g.counts[p]++
		}
	}
	if cmd != "elle-cli" {
		g.anomalies = sortedKeys(g.counts)
		g.anomalies = append(g.anomalies, reasonAnomalies(results)...)
	}
}

// reasonAnomalies are the anomalies Elle lists that are no violation: a
// result whose reason starts with "empty-transaction-graph:" or
// "cycle-search-timeout:" (the test was too weak, or the search ran out).
func reasonAnomalies(results []any) []string {
	var out []string
	for _, name := range []string{"empty-transaction-graph", "cycle-search-timeout"} {
		for _, r := range results {
			if reason, _ := mapOf(r)["reason"].(string); strings.HasPrefix(reason, name+":") {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// elleCLIVerdict is the verdict of elle-cli's line "FILE \t VERDICT".
func elleCLIVerdict(stdout string) string {
	line, _, _ := strings.Cut(stdout, "\n")
	if i := strings.LastIndex(line, "\t"); i >= 0 {
		return strings.TrimSpace(line[i+1:])
	}
	return ""
}

func verdictString(v any) string {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v)
	case string:
		return v
	}
	return ""
}

// worstVerdict combines the verdicts of one criterion's results (one per
// object): false over unknown over true.
func worstVerdict(a, b string) string {
	for _, v := range []string{"false", "unknown", "true"} {
		if a == v || b == v {
			return v
		}
	}
	return b
}

func mapOf(v any) map[string]any { m, _ := v.(map[string]any); return m }
func listOf(v any) []any         { l, _ := v.([]any); return l }
func stringsOf(v any) []string {
	var out []string
	for _, s := range listOf(v) {
		if s, ok := s.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// comparePeer lists every way got differs from want.
func comparePeer(want *peerOut, got peerGot) []string {
	var p []string
	if want.Exit != nil && *want.Exit != got.exit {
		p = append(p, fmt.Sprintf("exit %d, want %d", got.exit, *want.Exit))
	}
	if want.Valid != nil && string(*want.Valid) != got.valid {
		p = append(p, fmt.Sprintf("valid %q, want %q", got.valid, *want.Valid))
	}
	for _, name := range sortedKeys(want.Verdicts) {
		if g, ok := got.verdicts[name]; !ok || g != string(want.Verdicts[name]) {
			p = append(p, fmt.Sprintf("%s %q, want %q", name, g, want.Verdicts[name]))
		}
	}
	if want.Anomalies != nil && !sameSet(want.Anomalies, got.anomalies) {
		p = append(p, fmt.Sprintf("anomalies %q, want %q", sortedCopy(got.anomalies), sortedCopy(want.Anomalies)))
	}
	for _, name := range sortedKeys(want.AnomalyCounts) {
		if g := got.counts[name]; g != want.AnomalyCounts[name] {
			p = append(p, fmt.Sprintf("%d %s violations, want %d", g, name, want.AnomalyCounts[name]))
		}
	}
	for _, path := range sortedKeys(want.Fields) {
		p = append(p, compareField(got.report, path, want.Fields[path])...)
	}
	for _, s := range want.StdoutContains {
		if !strings.Contains(got.stdout, s) {
			p = append(p, fmt.Sprintf("stdout lacks %q", s))
		}
	}
	for _, s := range want.StderrContains {
		if !strings.Contains(got.stderr, s) {
			p = append(p, fmt.Sprintf("stderr lacks %q", s))
		}
	}
	return p
}

// compareField compares the value at a dotted path of the JSON report
// (object keys, or list indexes counted from 0) with want.
func compareField(report any, path string, want json.RawMessage) []string {
	var w any
	if err := json.Unmarshal(want, &w); err != nil {
		return []string{fmt.Sprintf("field %s: want is not JSON: %v", path, err)}
	}
	v, ok := report, report != nil
	for _, part := range strings.Split(path, ".") {
		if !ok {
			break
		}
		switch node := v.(type) {
		case map[string]any:
			v, ok = node[part]
		case []any:
			i, err := strconv.Atoi(part)
			ok = err == nil && i >= 0 && i < len(node)
			if ok {
				v = node[i]
			}
		default:
			ok = false
		}
	}
	if !ok {
		return []string{fmt.Sprintf("field %s absent, want %s", path, want)}
	}
	if !reflect.DeepEqual(v, w) {
		g, _ := json.Marshal(v)
		return []string{fmt.Sprintf("field %s = %s, want %s", path, g, want)}
	}
	return nil
}

func sameSet(a, b []string) bool {
	return slices.Equal(dedupSorted(a), dedupSorted(b))
}

func dedupSorted(s []string) []string { return slices.Compact(sortedCopy(s)) }

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestComparePeer holds the comparison of TestPeers to its rules: each
// part of want given is compared, and a difference in any is reported.
func TestComparePeer(t *testing.T) {
	var report any
	if err := json.Unmarshal([]byte(`{"valid": false, "histories": [{"ops": 3, "results": [{"consistency": "serializable", "valid": false,
		"violations": [{"pattern": "G2-item", "explanation": "a"}, {"pattern": "G2-item", "explanation": "b"}]}]}]}`), &report); err != nil {
		t.Fatal(err)
	}
	var got peerGot
	got.readJSON("check", mustJSON(t, report))
	got.exit = 1
	got.stdout, got.stderr = "out", "err"
	exit0, exit1 := 0, 1
	vf, vt := verdictWant("false"), verdictWant("true")
	for _, c := range []struct {
		name string
		want peerOut
		bad  int
	}{
		{"all agree", peerOut{Exit: &exit1, Valid: &vf, Verdicts: map[string]verdictWant{"serializable": "false"},
			Anomalies: []string{"G2-item"}, AnomalyCounts: map[string]int{"G2-item": 2},
			Fields: map[string]json.RawMessage{"histories.0.ops": json.RawMessage("3")}, StdoutContains: []string{"out"}, StderrContains: []string{"err"}}, 0},
		{"exit", peerOut{Exit: &exit0}, 1},
		{"valid", peerOut{Valid: &vt}, 1},
		{"verdict of a criterion not checked", peerOut{Verdicts: map[string]verdictWant{"read-committed": "false"}}, 1},
		{"anomalies as a set", peerOut{Anomalies: []string{"G2-item", "G2-item"}}, 0},
		{"an anomaly missing", peerOut{Anomalies: []string{"G2-item", "G0"}}, 1},
		{"no anomalies", peerOut{Anomalies: []string{}}, 1},
		{"count", peerOut{AnomalyCounts: map[string]int{"G2-item": 1}}, 1},
		{"field value", peerOut{Fields: map[string]json.RawMessage{"histories.0.ops": json.RawMessage("4")}}, 1},
		{"field absent", peerOut{Fields: map[string]json.RawMessage{"histories.1.ops": json.RawMessage("3")}}, 1},
		{"output", peerOut{StdoutContains: []string{"nope"}, StderrContains: []string{"nope"}}, 2},
	} {
		if p := comparePeer(&c.want, got); len(p) != c.bad {
			t.Errorf("%s: %d differences %q, want %d", c.name, len(p), p, c.bad)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
