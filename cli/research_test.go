package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// TestConvertResearchRoundTrip converts a simulated rw-register history
// from Jepsen's EDN (and JSON Lines) to each research checker's format
// and back with "histcheck convert": the transactions, their sessions,
// outcomes and reads come back the same, and checking either gives the
// same verdicts.
func TestConvertResearchRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "h.edn")
	if code, _, errs := run(t, nil, "sim", "txn", "--workload", "rw-register", "--isolation", "snapshot-isolation", "--sessions", "6",
		"--ops", "4", "--keys", "20", "--writes-per-key", "0", "--crash-rate", "0", "--txns", "300", "--emit", "history", "--to", "edn", "-o", src); code != ExitOK {
		t.Fatalf("sim: exit %d: %s", code, errs)
	}
	want := sessions(t, src)
	_, verdicts, _ := run(t, nil, "check", "-c", "serializable,snapshot-isolation,read-committed", "--no-core", src)
	for _, from := range []string{format.EDN, format.JSONL} {
		in := src
		if from == format.JSONL {
			in = filepath.Join(dir, "h.jsonl")
			if code, _, errs := run(t, nil, "convert", "--to", "jsonl", "-o", in, src); code != ExitOK {
				t.Fatalf("convert to jsonl: %s", errs)
			}
		}
		for _, to := range []string{format.Plume, format.AWDITTest, format.DBCop, format.DBCopHist, format.DBCopBincode} {
			mid := filepath.Join(dir, "h-"+from+"."+to)
			if to == format.DBCopBincode {
				mid = filepath.Join(dir, "h-"+from+".bincode") // binary: told by its name
			}
			back := filepath.Join(dir, "back-"+from+"-"+to+".edn")
			if code, _, errs := run(t, nil, "convert", "--to", to, "-o", mid, in); code != ExitOK {
				if to == format.AWDITTest && strings.Contains(errs, "committed transactions only") {
					continue // the simulated store aborts transactions, which AWDIT's tests cannot hold
				}
				t.Fatalf("convert %s to %s: exit %d: %s", from, to, code, errs)
			}
			if code, _, errs := run(t, nil, "convert", "--to", "edn", "-o", back, mid); code != ExitOK {
				t.Fatalf("convert %s back: exit %d: %s", to, code, errs)
			}
			if got := sessions(t, back); got != want {
				t.Errorf("%s → %s → edn: transactions differ:\n%s", from, to, firstDiff(got, want))
			}
			_, v, errs := run(t, nil, "check", "-c", "serializable,snapshot-isolation,read-committed", "--no-core", mid)
			if !strings.Contains(errs, format.NoRealTime) {
				t.Errorf("%s: no warning that the format records no real time: %s", to, errs)
			}
			if researchVerdicts(v, mid) != researchVerdicts(verdicts, src) {
				t.Errorf("%s: verdicts\n%s\nwant\n%s", to, v, verdicts)
			}
		}
	}
}

// sessions describes a history file's transactions by session, sessions
// numbered in order of first appearance. Aborted transactions show their
// writes only, and a session's consecutive aborted ones are one, as
// Plume's text keeps no more of them.
func sessions(t *testing.T, path string) string {
	t.Helper()
	h, err := format.ReadFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	index := map[string]int{}
	var lines []string
	lastFail := map[int]bool{}
	for _, o := range h.Ops {
		s, ok := index[o.Client]
		if !ok {
			s = len(index)
			index[o.Client] = s
			lines = append(lines, "")
		}
		if o.Status != history.Fail {
			lines[s] += " " + o.Status.String() + o.Value.String()
			lastFail[s] = false
			continue
		}
		ws := ""
		for _, m := range o.Value.Elems() {
			if f, _ := m.Elems()[0].Str(); f == "w" {
				ws += " " + m.String()
			}
		}
		switch {
		case ws == "":
		case lastFail[s]:
			lines[s] += ws
		default:
			lines[s] += " fail:" + ws
			lastFail[s] = true
		}
	}
	return strings.Join(lines, "\n")
}

// researchVerdicts are a text report's verdict lines, the file's name taken out.
func researchVerdicts(report, file string) string {
	var out []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, file+"\t") {
			out = append(out, strings.TrimPrefix(l, file))
		}
	}
	return strings.Join(out, "\n")
}

// firstDiff shows the first line where two descriptions differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "session " + strconv.Itoa(i) + ":\n" + g[i] + "\nwant\n" + w[i]
		}
	}
	return "sessions: " + strconv.Itoa(len(g)) + ", want " + strconv.Itoa(len(w))
}

// TestCheckCobraFolder checks a folder of Cobra's client logs as one
// history: a lost update, which serializability rules out.
func TestCheckCobraFolder(t *testing.T) {
	dir := t.TempDir()
	// Two sessions read the initial state of key 7 and both write it.
	log := func(txn, wid int64) []byte {
		var b []byte
		put := func(tag byte, nums ...int64) {
			b = append(b, tag)
			for _, n := range nums {
				b = binary.BigEndian.AppendUint64(b, uint64(n))
			}
		}
		put('S', txn)
		put('R', 0xbebeebee, 0xbebeebee, 7, 0)
		put('W', wid, 7, wid)
		put('C', txn)
		return b
	}
	for i, name := range []string{"T0.log", "T1.log"} {
		if err := os.WriteFile(filepath.Join(dir, name), log(int64(i+1), int64(100+i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := run(t, nil, "check", "-c", "serializable", "--no-core", dir)
	if code != ExitInvalid || !strings.Contains(out, dir+"\tserializable\tfalse") || !strings.Contains(out, "lost-update") {
		t.Errorf("exit %d, stderr %q:\n%s", code, errs, out)
	}
}
