package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// boom is a model whose Step panics on a write: a stand-in for a bug in a
// checker or a model.
type boom struct{ keyed bool }

func (m boom) Info() model.Info {
	return model.Info{Name: "boom", Doc: "panics on a write", Keyed: m.keyed,
		Ops: []model.OpInfo{{Names: []string{"read"}}, {Names: []string{"write"}}}}
}

func (boom) Compile(op *history.Op, _ *model.Table) (model.Op, error) {
	if op.F == "write" {
		return model.Op{Kind: 1}, nil
	}
	return model.Op{}, nil
}

func (boom) Init(*model.Table) int64 { return 0 }

func (boom) Step(s int64, op *model.Op) (int64, bool) {
	if op.Kind == 1 {
		var xs []int
		_ = xs[len(xs)+int(op.Kind)] // an index out of range, as a bug would
	}
	return s, true
}

func (boom) Describe(s int64, _ *model.Table) string { return "state" }

// TestPanicIsAnInternalError checks that a panic in a check, in the caller's
// goroutine or in a worker's, is reported as an unknown verdict with an
// internal error naming the file and criterion, and that the run goes on
// with the other files (exit 3).
func TestPanicIsAnInternalError(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.hist")
	keys := filepath.Join(dir, "keys.json")
	writeFile(t, one, "A: w(1) [0, 1]\nB: r(0) [2, 3]\n")
	var b strings.Builder
	b.WriteString("[")
	for k := 0; k < 8; k++ {
		if k > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`{"process": "P` + string(rune('a'+k)) + `", "f": "write", "key": ` + string(rune('0'+k)) + `, "value": 1, "call": 0, "return": 1}`)
	}
	b.WriteString("]")
	writeFile(t, keys, b.String())
	for _, keyed := range []bool{false, true} {
		var out, errb bytes.Buffer
		code := ExitCode(Main([]string{"check", "-m", "boom", "-j", "2", one, keys}, nil, &out, &errb,
			suite.Bind(func(model.Options) model.Model[int64] { return boom{keyed: keyed} })))
		if code != ExitError {
			t.Fatalf("keyed %v: exit %d, want %d\n%s%s", keyed, code, ExitError, out.String(), errb.String())
		}
		for _, f := range []string{one, keys} {
			if !strings.Contains(out.String(), f+"\tlinearizable\tunknown\n") {
				t.Errorf("keyed %v: no unknown verdict for %s in\n%s", keyed, f, out.String())
			}
			if !strings.Contains(out.String(), "internal error checking linearizable of "+f+": panic: runtime error: index out of range") {
				t.Errorf("keyed %v: no internal error naming %s in\n%s", keyed, f, out.String())
			}
			if !strings.Contains(out.String(), `in model boom's Step on op 0 (`) || !strings.Contains(out.String(), `in state "state")`) {
				t.Errorf("keyed %v: the internal error does not name the model, operation and state in\n%s", keyed, out.String())
			}
		}
		if !strings.Contains(errb.String(), "this is a bug in histcheck") {
			t.Errorf("keyed %v: stderr does not call it a bug:\n%s", keyed, errb.String())
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
