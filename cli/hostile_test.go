package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// hostileTexts are names and values an input may hold that must reach the
// terminal neither as line breaks nor as control sequences.
var hostileTexts = []struct{ name, text string }{
	{"forged verdict", "A\nx.json\tlinearizable\ttrue"},
	{"tab", "a\tb"},
	{"clear screen", "\x1b[2J"},
	{"title escape", "\x1b]0;owned\x07"},
	{"carriage return", "ok\rFAIL"},
	{"NUL", "\x00nil"},
	{"C1 CSI", "\u009b31m"},
	{"bidi override", "abc\u202exyz"},
	{"line separator", "a\u2028b"},
}

// terminalSafe fails t if out holds a byte or character that could break
// a line or move the cursor: control characters other than newline and
// tab (tabs only where allowed), C1 controls, format characters (bidi
// controls), line separators, invalid UTF-8.
func terminalSafe(t *testing.T, what, out string, tabs bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s: invalid UTF-8 in %q", what, out)
		return
	}
	for _, r := range out {
		switch {
		case r == '\n':
		case r == '\t' && tabs:
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == '\u2028', r == '\u2029':
			t.Errorf("%s: character %U reaches the terminal:\n%q", what, r, out)
			return
		}
	}
}

var verdictLine = regexp.MustCompile(`^([^\t]+)\t(linearizable|sequential)\t(true|false|unknown)$`)

// verdictLines checks that out's lines at the margin are exactly the
// verdict lines of file, one per criterion in order, and that no other
// line holds a tab.
func verdictLines(t *testing.T, what, out, file string, criteria ...string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, " ") {
			if strings.Contains(l, "\t") {
				t.Errorf("%s: a line of detail holds a tab: %q", what, l)
			}
			continue
		}
		m := verdictLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("%s: line at the margin is not a verdict line: %q", what, l)
			continue
		}
		if m[1] != history.Quote(file) {
			t.Errorf("%s: verdict line names %q, want %q", what, m[1], history.Quote(file))
		}
		got = append(got, m[2])
	}
	if strings.Join(got, ",") != strings.Join(criteria, ",") {
		t.Errorf("%s: verdict lines for %v, want one each for %v:\n%s", what, got, criteria, out)
	}
}

// hostileOps is a register history with a stale read, in the operations
// format: the process name, the value written and the key come from the
// caller.
func hostileOps(t *testing.T, proc, value string, key any) []byte {
	t.Helper()
	op := func(p, f string, v any, call, ret int) map[string]any {
		m := map[string]any{"process": p, "f": f, "value": v, "call": call, "return": ret}
		if key != nil {
			m["key"] = key
		}
		return m
	}
	ops := []map[string]any{
		op(proc, "write", "old", 0, 1),
		op("B", "write", value, 2, 3),
		op(proc, "read", "old", 4, 5),
		op("C", "read", value, 6, 7),
	}
	b, err := json.Marshal(ops)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHostileInput feeds names, values, keys and file names that hold
// line breaks, escape sequences, other control characters, bidi controls
// and invalid UTF-8 through every output form: the text form has exactly
// one verdict line per criterion and nothing that reaches the terminal as
// a control; JSON carries the input as it is; JUnit has one test case per
// criterion and names shown as in the text form.
func TestHostileInput(t *testing.T) {
	type input struct {
		name, file string
		data       []byte
		model      string
		raw        func(t *testing.T, rep *report.Report) // checks JSON's raw values, if set
	}
	var inputs []input
	for _, h := range hostileTexts {
		text := h.text
		inputs = append(inputs,
			input{name: "process " + h.name, file: "h.json", data: hostileOps(t, text, "new", nil), model: "register",
				raw: func(t *testing.T, rep *report.Report) {
					if got := rep.Histories[0].Results[1].Witness; !hasOp(got, func(op report.Op) bool { return op.Process == text }) {
						t.Errorf("JSON does not carry the process name %q as it is: %+v", text, got)
					}
				}},
			input{name: "value " + h.name, file: "h.json", data: hostileOps(t, "A", text, nil), model: "register",
				raw: func(t *testing.T, rep *report.Report) {
					if got := rep.Histories[0].Results[1].Witness; !hasOp(got, func(op report.Op) bool { return op.Value == text }) {
						t.Errorf("JSON does not carry the value %q as it is: %+v", text, got)
					}
				}},
			input{name: "key " + h.name, file: "h.json", data: hostileOps(t, "A", "new", text), model: "kv",
				raw: func(t *testing.T, rep *report.Report) {
					if got := rep.Histories[0].Results[1].Witness; !hasOp(got, func(op report.Op) bool { return op.Key == text }) {
						t.Errorf("JSON does not carry the key %q as it is: %+v", text, got)
					}
				}},
		)
		if !strings.ContainsRune(text, 0) { // no file name holds a NUL
			file := strings.ReplaceAll(text, "/", "_") + ".json"
			inputs = append(inputs, input{name: "file " + h.name, file: file, data: hostileOps(t, "A", "new", nil), model: "register",
				raw: func(t *testing.T, rep *report.Report) {
					if filepath.Base(rep.Histories[0].File) != file {
						t.Errorf("JSON file is %q, want %q", rep.Histories[0].File, file)
					}
				}})
		}
	}
	// JSON cannot carry invalid UTF-8 (the encoder writes U+FFFD for each
	// bad byte), so this file name is not compared there.
	inputs = append(inputs, input{name: "file invalid UTF-8", file: "bad\xff\x9b.json", data: hostileOps(t, "A", "new", nil), model: "register"})

	criteria := []string{"linearizable", "sequential"}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, in.file)
			if err := os.WriteFile(path, in.data, 0o644); err != nil {
				t.Skipf("the file system refuses the name: %v", err)
			}
			args := []string{"check", "-m", in.model, "--init", "old", "-c", strings.Join(criteria, ",")}

			// Text: one verdict line per criterion, nothing else at the
			// margin, no control characters.
			code, out, errs := run(t, nil, append(args, path)...)
			if code != ExitInvalid {
				t.Fatalf("text: exit %d, want %d (linearizable false, sequential true)\n%s%s", code, ExitInvalid, out, errs)
			}
			verdictLines(t, "text", out, path, criteria...)
			terminalSafe(t, "text", out, true)
			terminalSafe(t, "stderr", errs, false)
			if !strings.Contains(out, "\tlinearizable\tfalse\n") || !strings.Contains(out, "\tsequential\ttrue\n") {
				t.Errorf("text: want linearizable false and sequential true:\n%s", out)
			}

			// --summary and -v print more text from the input.
			_, out, errs = run(t, nil, append(args, "--summary", "-v", path)...)
			terminalSafe(t, "text --summary -v", out, true)
			terminalSafe(t, "stderr --summary -v", errs, false)

			// JSON: the input as it is.
			code, out, errs = run(t, nil, append(args, "-o", "json", path)...)
			if code != ExitInvalid {
				t.Fatalf("json: exit %d\n%s", code, errs)
			}
			terminalSafe(t, "json stderr", errs, false)
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("json: %v\n%s", err, out)
			}
			if len(rep.Histories) != 1 || len(rep.Histories[0].Results) != 2 || len(rep.Histories[0].Results[0].Violations) == 0 {
				t.Fatalf("json: want one history, two results and a violation: %s", out)
			}
			if in.raw != nil {
				in.raw(t, &rep)
			}

			// JUnit: one test case per criterion, well-formed XML.
			code, out, errs = run(t, nil, append(args, "-o", "junit", path)...)
			if code != ExitInvalid {
				t.Fatalf("junit: exit %d\n%s", code, errs)
			}
			terminalSafe(t, "junit", out, false)
			var suites struct {
				Suites []struct {
					Name  string `xml:"name,attr"`
					Cases []struct {
						Name      string `xml:"name,attr"`
						Classname string `xml:"classname,attr"`
					} `xml:"testcase"`
				} `xml:"testsuite"`
			}
			if err := xml.NewDecoder(bytes.NewReader([]byte(out))).Decode(&suites); err != nil {
				t.Fatalf("junit: %v\n%s", err, out)
			}
			if len(suites.Suites) != 1 || len(suites.Suites[0].Cases) != 2 {
				t.Fatalf("junit: want one suite of two cases:\n%s", out)
			}
			if s := suites.Suites[0]; s.Name != history.Quote(path) || s.Cases[0].Classname != history.Quote(path) {
				t.Errorf("junit: suite %q, class %q; want %q", s.Name, s.Cases[0].Classname, history.Quote(path))
			}
		})
	}
}

func hasOp(ops []report.Op, f func(report.Op) bool) bool {
	for _, op := range ops {
		if f(op) {
			return true
		}
	}
	return false
}

// TestHostileErrors: input errors quote the input; whatever it holds, the
// message is one line on stderr without control characters.
func TestHostileErrors(t *testing.T) {
	tests := []struct {
		name, file, data string
	}{
		{"pairing names the process and operations", "e.json",
			`[{"process":"A\u001b[2J\n","type":"invoke","f":"write","value":1},` +
				`{"process":"A\u001b[2J\n","type":"ok","f":"read\r\u009b\u202e","value":1}]`},
		{"bad field value", "e.json", `[{"process":"A","type":"ok\u001b[2J\nx","f":"read","value":1}]`},
		{"EDN string with raw controls", "e.edn",
			"{:process \"A\x1b[2J\n\u009b\" :type :invoke :f :write :value 1}\n{:process \"A\x1b[2J\n\u009b\" :type :ok :f :read :value 1}\n"},
		{"invalid UTF-8", "e.edn", "{:process \"A\x9b\" :type :invoke :f :write :value 1}\n"},
		{"notation with controls", "e.hist", "A: w(1) [0, 1]\nB\x1b[2J: r(1) [2, \x1b[31m]\n"},
		{"file name", "x\x1b[2J\nx.json\tlinearizable\ttrue", `[`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Skipf("the file system refuses the name: %v", err)
			}
			for _, args := range [][]string{{"check", "-m", "register", path}, {"convert", "--to", "json", path}} {
				code, out, errs := run(t, nil, args...)
				if code != ExitError {
					t.Errorf("%s: exit %d, want %d\n%s%s", args[0], code, ExitError, out, errs)
				}
				terminalSafe(t, args[0]+" stderr", errs, false)
				if n := strings.Count(errs, "\n"); n != 1 {
					t.Errorf("%s: stderr has %d lines, want one:\n%s", args[0], n, errs)
				}
			}
		})
	}
}

// TestNilShownAsNil: a read or write of nil shows as nil in text, whichever
// engine decided (the register sweep recodes nil to a value of its own),
// and as null in JSON; no sentinel reaches the user.
func TestNilShownAsNil(t *testing.T) {
	files := map[string]string{
		// Repeated values: the register sweep decides.
		"sweep.json": `[{"process":"A","f":"write","value":null,"call":0,"return":1},
			{"process":"B","f":"write","value":null,"call":0,"return":1},
			{"process":"A","f":"write","value":1,"call":2,"return":3},
			{"process":"B","f":"write","value":1,"call":2,"return":3},
			{"process":"C","f":"read","value":null,"call":4,"return":5}]`,
		"thin-air.json": `[{"process":"A","f":"write","value":1,"call":0,"return":1},
			{"process":"B","f":"read","value":null,"call":2,"return":3}]`,
	}
	dir := t.TempDir()
	for name, data := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := run(t, nil, "check", "-m", "register", "--init", "0", path)
		if code != ExitInvalid {
			t.Fatalf("%s: exit %d\n%s%s", name, code, out, errs)
		}
		terminalSafe(t, name, out, true)
		if !strings.Contains(out, ":r(nil)") || strings.Contains(out, "nil\"") || strings.Contains(out, `\x00`) {
			t.Errorf("%s: a read of nil is not shown as r(nil):\n%s", name, out)
		}
		if name == "sweep.json" && (!strings.Contains(out, "A:w(nil)") || !strings.Contains(strings.Join(strings.Fields(out), " "), "returned the older value nil")) {
			t.Errorf("%s: the writes of nil are not shown as w(nil):\n%s", name, out)
		}

		_, out, _ = run(t, nil, "check", "-m", "register", "--init", "0", "-o", "json", path)
		if strings.Contains(out, `\u0000`) || strings.Contains(out, `"value": "`) {
			t.Errorf("%s: JSON shows nil as something else than null:\n%s", name, out)
		}
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		v := rep.Histories[0].Results[0].Violations[0]
		if !hasOp(v.Ops, func(op report.Op) bool {
			return op.F == "read" && op.Value == nil && strings.HasSuffix(op.Label, ":r(nil)")
		}) {
			t.Errorf("%s: the violation's read of nil is not null, r(nil): %+v", name, v.Ops)
		}
	}
}

// TestWarningsOnStderr: a history's warnings are printed on stderr once per
// file, prefixed by its name, whatever the output form; they are still in
// the JSON report and under --summary.
func TestWarningsOnStderr(t *testing.T) {
	dir := t.TempDir()
	const events = `{:process %s, :type :invoke, :f :write, :value 1, :time 10}
{:process %s, :type :info, :f :write, :value 1, :time 20}
{:process %s, :type :invoke, :f :read, :value nil, :time 30}
{:process %s, :type :ok, :f :read, :value 1, :time 40}
`
	write := func(name, proc string) string {
		path := filepath.Join(dir, name)
		data := strings.ReplaceAll(events, "%s", proc)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	plain := write("crash.edn", "0")
	hostile := write("hostile.edn", `"P\u001b[2J\nx.edn\tlinearizable\ttrue"`)
	const warning = "warning: process %s invoked again after an operation with unknown outcome (line 3); treating it as a new logical process"
	wantPlain := plain + ": " + strings.ReplaceAll(warning, "%s", "0") + "\n"
	wantHostile := hostile + ": " + strings.ReplaceAll(warning, "%s", `"P\x1b[2J\nx.edn\tlinearizable\ttrue"`) + "\n"

	for _, form := range []string{"text", "json", "junit"} {
		code, out, errs := run(t, nil, "check", "-m", "register", "--init", "0", "-o", form, plain, hostile)
		if code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", form, code, out, errs)
		}
		if errs != wantPlain+wantHostile {
			t.Errorf("%s: stderr\n%s\nwant\n%s%s", form, errs, wantPlain, wantHostile)
		}
		terminalSafe(t, form+" stderr", errs, false)
		switch form {
		case "text":
			if strings.Contains(out, "warning") {
				t.Errorf("text without --summary prints the warning on stdout:\n%s", out)
			}
			verdictLines(t, "text", strings.SplitN(out, "\n", 3)[0]+"\n", plain, "linearizable")
		case "json":
			var rep report.Report
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			for i, h := range rep.Histories {
				if len(h.Warnings) != 1 {
					t.Errorf("json: history %d has warnings %q, want one", i, h.Warnings)
				}
			}
		}
	}

	// --summary still lists the warnings under the counts, as before.
	code, out, errs := run(t, nil, "check", "-m", "register", "--summary", "--no-check", plain)
	if code != ExitOK || !strings.Contains(out, "\n    "+strings.ReplaceAll(warning, "%s", "0")+"\n") || errs != wantPlain {
		t.Errorf("--summary: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}

// TestNamesKeepTheirCase: a sentence that starts with a value or a label
// starts with the input's own text. Capitalising it named another process
// ("Carl" for carl) or value ("Abc" for abc), and split a name that starts
// with a multi-byte character ("élan") into invalid UTF-8.
func TestNamesKeepTheirCase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "case.json")
	data := `[{"process":"élan","f":"write","value":"abc","call":0,"return":10},
		{"process":"bob","f":"read","value":"zzz","call":2,"return":4},
		{"process":"carl","f":"write","value":"def","call":12,"return":14},
		{"process":"élan","f":"read","value":"abc","call":16,"return":18}]`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, nil, "check", "-m", "register", "--init", "zzz", "-v", "-c", "linearizable,sequential", path)
	if code != ExitInvalid {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	terminalSafe(t, "text", out, true)
	for _, bad := range []string{"Abc", "Carl", "Élan", `\x`, "\ufffd"} {
		if strings.Contains(out, bad) {
			t.Errorf("output holds %q, not the input's own text:\n%s", bad, out)
		}
	}
	for _, want := range []string{"- The checker's reason: abc, written only by élan:w(abc), must be", "- élan:w(abc) finished at 10 before carl:w(def) began at 12.",
		"- carl:w(def) finished at 14 before élan:r(abc) began at 16."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
