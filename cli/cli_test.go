package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

func TestParseScalar(t *testing.T) {
	tests := []struct {
		in   string
		want history.Value
	}{
		{"0", history.IntValue(0)},
		{"-7", history.IntValue(-7)},
		{"1.5", history.FloatValue(1.5)},
		{"2.0", history.IntValue(2)},
		{"nil", history.NilValue},
		{"null", history.NilValue},
		{`""`, history.StringValue("")},
		{"", history.StringValue("")},
		{`"a b"`, history.StringValue("a b")},
		{`'x'`, history.StringValue("x")},
		{"free", history.StringValue("free")},
		{"inf", history.StringValue("inf")},
		{":ok", history.StringValue("ok")},
		{"true", history.BoolValue(true)},
	}
	for _, tt := range tests {
		if got := ParseScalar(tt.in); got != tt.want {
			t.Errorf("ParseScalar(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestParseCriteria(t *testing.T) {
	got, err := parseCriteria("linearizable, sequential,linearizable,all")
	if err != nil || strings.Join(got, " ") != "linearizable sequential all" {
		t.Errorf("parseCriteria = %v, %v", got, err)
	}
	for _, bad := range []string{"", " , ", "strict-linearizable"} {
		if _, err := parseCriteria(bad); err == nil {
			t.Errorf("parseCriteria(%q) accepted", bad)
		}
	}
}

func TestExitCodes(t *testing.T) {
	if worse(ExitUnknown, ExitInvalid) != ExitInvalid || worse(ExitInvalid, ExitError) != ExitError ||
		worse(ExitOK, ExitUnknown) != ExitUnknown || worse(ExitInvalid, ExitUnknown) != ExitInvalid {
		t.Error("exit code ranking wrong")
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"check", "--workers", "-1", "x"}, nil, &out, &errb); code != int(ExitError) {
		t.Errorf("negative workers: exit %d", code)
	}
	if !strings.Contains(errb.String(), "--workers must be 0 or more") {
		t.Errorf("stderr: %s", errb.String())
	}
}

// TestExtraModel shows that a model given to Main replaces the built-in
// one of the same name and is used for checking.
func TestExtraModel(t *testing.T) {
	ms := models(nil)
	custom := ms[0]
	custom.Info.Doc = "a replacement"
	var out, errb bytes.Buffer
	if code := Main([]string{"models"}, nil, &out, &errb, custom); code != 0 {
		t.Fatalf("models: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "a replacement") || strings.Count(out.String(), "\nregister\n")+strings.Count(out.String()[:9], "register\n") != 1 {
		t.Errorf("models output:\n%s", out.String())
	}
}

// flaky accepts every step while the search runs and rejects later ones, so
// its witnesses cannot be replayed: it stands for a checker defect.
type flaky struct{ steps *int }

func (f flaky) Info() model.Info {
	return model.Info{Name: "flaky", Ops: []model.OpInfo{{Names: []string{"write"}}}}
}
func (f flaky) Compile(*history.Op, *model.Table) (model.Op, error) { return model.Op{}, nil }
func (f flaky) Init(*model.Table) int                               { return 0 }
func (f flaky) Step(s int, _ *model.Op) (int, bool)                 { *f.steps++; return s, *f.steps <= 2 }
func (f flaky) Describe(int, *model.Table) string                   { return "0" }

func TestVerifyWitnessFailureIsInternalError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.hist")
	if err := os.WriteFile(path, []byte("A: w(1) [0, 1]\nB: w(2) [2, 3]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := suite.Bind(func(model.Options) model.Model[int] { n := 0; return flaky{steps: &n} })
	var out, errb bytes.Buffer
	if code := Main([]string{"check", "-m", "flaky", path}, nil, &out, &errb, m); code != int(ExitOK) {
		t.Fatalf("without --verify-witness: exit %d: %s", code, errb.String())
	}
	out.Reset()
	errb.Reset()
	code := Main([]string{"check", "-m", "flaky", "--verify-witness", path}, nil, &out, &errb, m)
	if code != int(ExitError) || !strings.Contains(errb.String(), "internal error: the linearizable witness for model flaky does not verify") {
		t.Errorf("with --verify-witness: exit %d, stderr %q", code, errb.String())
	}
}

// TestJSONReportSchema decodes real reports into the documented types,
// refusing fields the schema does not name.
func TestJSONReportSchema(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"h2.hist":    "A: w(1) [0, 10]\nB: r -> 1 [2, 4]\nC: r -> 0 [6, 8]\n",
		"crash.hist": "A: w(1) [0, ?]\nB: r -> 1 [2, 4]\nB: w(x, 2) [5, 6] fail\n",
	}
	var args []string
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	var out, errb bytes.Buffer
	code := Main(append([]string{"check", "-o", "json", "-c", "all", "-m", "kv"}, args...), nil, &out, &errb)
	if code != int(ExitInvalid) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	var rep report.Report
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report does not match the schema: %v", err)
	}
	if rep.Version != report.Version || rep.Valid != checker.False || len(rep.Histories) != 2 {
		t.Fatalf("report: version %d valid %v histories %d", rep.Version, rep.Valid, len(rep.Histories))
	}
	for _, h := range rep.Histories {
		if h.Ladder == nil || len(h.Results) != len(checker.AllCriteria) {
			t.Errorf("%s: ladder %v, %d results", h.File, h.Ladder, len(h.Results))
		}
		for _, r := range h.Results {
			if r.Valid == checker.False && len(r.Violations) == 0 {
				t.Errorf("%s %s: false without violations", h.File, r.Consistency)
			}
			for _, v := range r.Violations {
				if len(v.Ops) == 0 || v.Explanation == "" {
					t.Errorf("%s %s: violation without ops or explanation: %+v", h.File, r.Consistency, v)
				}
			}
		}
		if filepath.Base(h.File) == "crash.hist" && (h.Unknown != 1 || h.Failed != 1 || h.OK != 1) {
			t.Errorf("crash.hist counts: ok %d failed %d unknown %d", h.OK, h.Failed, h.Unknown)
		}
	}
}
