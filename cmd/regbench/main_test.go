package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
)

// TestFamily checks the family's shape: every client count and size, the
// goal row marked, each valid and invalid, and generation deterministic.
func TestFamily(t *testing.T) {
	rows := Family()
	goal := 0
	seen := map[[2]int]bool{}
	for _, r := range rows {
		seen[[2]int{r.Clients, r.Ops}] = true
		if r.Goal {
			goal++
			if r.Clients != 32 || r.Ops != 2000 || r.Crash != 0.01 {
				t.Errorf("goal row is %+v", r)
			}
		}
	}
	if goal != 2 || len(seen) != 12 {
		t.Errorf("%d goal rows, %d sizes", goal, len(seen))
	}
	a, err := Generate(rows[0])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(rows[0])
	if len(a.Ops) != rows[0].Ops || a.Ops[len(a.Ops)-1].Label() != b.Ops[len(b.Ops)-1].Label() || a.Ops[len(a.Ops)-1].Call != b.Ops[len(b.Ops)-1].Call {
		t.Error("generation is not deterministic or has the wrong size")
	}
}

// TestMeasure runs both checkers on the smallest rows and checks their
// verdicts match the variant.
func TestMeasure(t *testing.T) {
	for _, r := range Family()[:2] {
		o, err := Measure(r, 10*time.Second, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := checker.True
		if r.Invalid {
			want = checker.False
		}
		if o.Ours != want || o.Porc != want {
			t.Errorf("%+v: histcheck %v, porcupine %v, want %v", r, o.Ours, o.Porc, want)
		}
	}
}

// TestRun runs the command on one row and checks the table and the plot.
func TestRun(t *testing.T) {
	png := filepath.Join(t.TempDir(), "p.png")
	var out bytes.Buffer
	if err := run([]string{"-rows", "8:500", "-budget", "10s", "-plot", png}, &out); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "| 8 | 500 | 1 |") || strings.Count(s, "| 8 | 500 |") != 2 {
		t.Errorf("table:\n%s", s)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("plot not written: %v", err)
	}
	if err := run([]string{"-rows", "7:7"}, &out); err == nil {
		t.Error("a row outside the family was accepted")
	}
}
