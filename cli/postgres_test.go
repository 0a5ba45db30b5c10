package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/report"
)

// pgLevel is what PostgreSQL's documentation and Jepsen's analyses say of
// one of its isolation levels, as histcheck's verdicts under -c all: each
// criterion's verdict (none where the level promises nothing either way),
// the anomalies a recording with enough contention must show, and those
// it must never show.
type pgLevel struct {
	verdicts map[string]checker.Verdict
	must     []string
	never    []string
}

// unasserted marks a criterion a level promises nothing of, either way.
const unasserted checker.Verdict = -1

// everyLevel sets every criterion of -c all to v, then the exceptions.
func everyLevel(v checker.Verdict, except map[string]checker.Verdict) map[string]checker.Verdict {
	m := map[string]checker.Verdict{}
	for _, c := range []string{
		"strict-serializable", "strong-session-serializable", "serializable",
		"strong-snapshot-isolation", "strong-session-snapshot-isolation", "snapshot-isolation",
		"repeatable-read", "cursor-stability", "monotonic-atomic-view",
		"strong-read-committed", "strong-session-read-committed", "read-committed",
		"strong-read-uncommitted", "strong-session-read-uncommitted", "read-uncommitted",
	} {
		m[c] = v
	}
	for c, e := range except {
		if e == unasserted {
			delete(m, c)
		} else {
			m[c] = e
		}
	}
	return m
}

// notG1 are anomalies no level of PostgreSQL's shows: read committed rules
// them out, and each level is at least that.
var notG1 = []string{"G0", "G1a", "G1b", "G1c", "G0-process", "G1c-process", "G0-realtime", "G1c-realtime",
	"dirty-update", "duplicate-elements", "incompatible-order", "future-read", "cyclic-versions"}

// pgLevels are PostgreSQL's levels by the prefix of their recordings' names.
// SERIALIZABLE is serializable snapshot isolation, on one server strict
// serializable. REPEATABLE READ is snapshot isolation (a snapshot taken at
// the transaction's first statement, first-updater-wins): write skew
// (G2-item) shows, lost updates do not, so Adya's repeatable read fails
// and cursor stability holds. READ COMMITTED takes a snapshot per
// statement and an upsert updates the latest committed row, so
// non-repeatable reads (internal), read skew (G-single) and lost updates
// show; monotonic atomic view is left open (PostgreSQL does not promise it).
var pgLevels = map[string]pgLevel{
	"serializable": {
		verdicts: everyLevel(checker.True, nil),
	},
	"repeatable-read": {
		verdicts: everyLevel(checker.True, map[string]checker.Verdict{
			"strict-serializable": checker.False, "strong-session-serializable": checker.False,
			"serializable": checker.False, "repeatable-read": checker.False,
		}),
		must: []string{"G2-item"},
		never: append([]string{"internal", "lost-update", "fractured-read",
			"G-single-item", "G-nonadjacent-item", "G-single-item-process", "G-nonadjacent-item-process"}, notG1...),
	},
	"read-committed": {
		verdicts: everyLevel(checker.True, map[string]checker.Verdict{
			"strict-serializable": checker.False, "strong-session-serializable": checker.False,
			"serializable": checker.False, "strong-snapshot-isolation": checker.False,
			"strong-session-snapshot-isolation": checker.False, "snapshot-isolation": checker.False,
			"repeatable-read": checker.False, "cursor-stability": checker.False,
			"monotonic-atomic-view": unasserted,
		}),
		must:  []string{"G-single-item", "lost-update"},
		never: notG1,
	},
}

// TestPostgresLevels checks the list-append histories recorded from
// PostgreSQL (scripts/postgres-record) under -c all: each file's verdicts
// are those its level promises, and its anomalies those the level shows.
// A file's level is the prefix of its name; a recording of any size can be
// dropped into the directory to be checked the same way.
func TestPostgresLevels(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "postgres")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if !strings.Contains(name, ".edn") {
			continue
		}
		level, lv := pgLevelOf(name)
		if level == "" {
			continue // an altered recording, checked by its own test
		}
		seen[level]++
		t.Run(name, func(t *testing.T) {
			res, anomalies := checkAll(t, filepath.Join(dir, name))
			for c, want := range lv.verdicts {
				if got, ok := res[c]; !ok || got != want {
					t.Errorf("%s: %v, want %v", c, got, want)
				}
			}
			for _, a := range lv.must {
				if !anomalies[a] {
					t.Errorf("no %s among the anomalies %v", a, keys(anomalies))
				}
			}
			for _, a := range lv.never {
				if anomalies[a] {
					t.Errorf("%s among the anomalies %v", a, keys(anomalies))
				}
			}
			if len(lv.must) == 0 && len(anomalies) > 0 {
				t.Errorf("anomalies %v, want none", keys(anomalies))
			}
		})
	}
	for level := range pgLevels {
		if seen[level] == 0 {
			t.Errorf("no recording of %s in %s", level, dir)
		}
	}
}

// pgLevelOf returns the level a recording's name begins with. PostgreSQL's
// READ UNCOMMITTED is its READ COMMITTED.
func pgLevelOf(name string) (string, pgLevel) {
	if rest, ok := strings.CutPrefix(name, "read-uncommitted-"); ok {
		name = "read-committed-" + rest
	}
	for level, lv := range pgLevels {
		if strings.HasPrefix(name, level+"-") {
			return level, lv
		}
	}
	return "", pgLevel{}
}

// checkAll runs check -m list-append -c all -o json on file and returns
// each criterion's verdict and the patterns of all its violations.
func checkAll(t *testing.T, file string) (map[string]checker.Verdict, map[string]bool) {
	t.Helper()
	code, out, errs := run(t, nil, "check", "-m", "list-append", "-c", "all", "-o", "json", file)
	if code != ExitOK && code != ExitInvalid {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if len(rep.Histories) != 1 || rep.Histories[0].Error != "" {
		t.Fatalf("want one history read without error: %s", out)
	}
	res := map[string]checker.Verdict{}
	anomalies := map[string]bool{}
	for _, r := range rep.Histories[0].Results {
		res[r.Consistency] = r.Valid
		for _, v := range r.Violations {
			anomalies[v.Pattern] = true
		}
	}
	return res, anomalies
}

func keys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TestPostgresFracturedRead checks the SERIALIZABLE recording altered to
// hold one fractured read (testdata/histories/postgres/README.md): it
// breaks monotonic atomic view, and the reader's rw and wr dependencies on
// the writer make a G-single-item cycle, so read committed holds and
// snapshot isolation fails; nothing else is found.
func TestPostgresFracturedRead(t *testing.T) {
	file := filepath.Join("..", "testdata", "histories", "postgres", "fractured-read.edn.gz")
	res, anomalies := checkAll(t, file)
	for c, want := range map[string]checker.Verdict{
		"read-committed": checker.True, "cursor-stability": checker.True,
		"monotonic-atomic-view": checker.False,
		"snapshot-isolation":    checker.False, "serializable": checker.False,
	} {
		if res[c] != want {
			t.Errorf("%s: %v, want %v", c, res[c], want)
		}
	}
	if got, want := keys(anomalies), []string{"G-single-item", "fractured-read"}; !slices.Equal(got, want) {
		t.Errorf("anomalies %v, want %v", got, want)
	}
}

// TestPostgresCyclesPerComponent checks that each strongly connected
// component of the 5,000-transaction REPEATABLE READ recording that holds a
// write skew gets its own G2-item cycle under serializable: 74, as a count
// of the components of its ww, wr and rw dependencies with a cycle finds
// (none of them is joined to another by process order).
func TestPostgresCyclesPerComponent(t *testing.T) {
	file := filepath.Join("..", "testdata", "histories", "postgres", "repeatable-read-5000.edn.gz")
	code, out, errs := run(t, nil, "check", "-m", "list-append", "-c", "serializable", "-o", "json", file)
	if code != ExitInvalid {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v", err)
	}
	n := 0
	for _, r := range rep.Histories[0].Results {
		for _, v := range r.Violations {
			if v.Pattern != "G2-item" {
				t.Errorf("a %s violation, want only G2-item", v.Pattern)
			}
			n++
		}
	}
	if n != 74 {
		t.Errorf("%d G2-item cycles, want 74, one per component", n)
	}
}
