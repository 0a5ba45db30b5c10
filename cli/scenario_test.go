package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/report"
	"github.com/histcheck/histcheck/sim"
)

// scenarioRuns are the runs whose verdicts the chapters state: each
// scenario with its flags, and the verdict "histcheck check" must give the
// emitted history with no flags at all.
var scenarioRuns = []struct {
	name   string
	params sim.Params
	want   string // true or false
}{
	{"partition", nil, "false"},
	{"partition", sim.Params{"mode": "cp"}, "true"},
	{"partition", sim.Params{"split": "4|1", "mode": "cp"}, "true"},
	{"partition", sim.Params{"split": "4|1", "mode": "ap"}, "false"},
	{"lag", nil, "false"},
	{"lockqueue", nil, "true"},
	{"lockqueue", sim.Params{"clients": "12", "seed": "5"}, "true"},
	{"lockqueue", sim.Params{"service": "etcd"}, "true"},
	{"fencing", nil, "false"},
	{"fencing", sim.Params{"fencing": "on"}, "true"},
	// The old holder's write first: the lease and the fenced stock pass,
	// the sales (each holder's read and write as one step) fail.
	{"fencing", sim.Params{"late": "on"}, "false"},
	{"fencing", sim.Params{"late": "on", "register": "on"}, "true"},
	{"lease-ttl", nil, "false"},
	{"lease-ttl", sim.Params{"fenced": "true"}, "true"},
	{"lease-ttl", sim.Params{"ttl": "10"}, "false"},
	{"lease-ttl", sim.Params{"ttl": "10", "fenced": "true"}, "true"},
	{"redis-lock", nil, "false"},
	{"redis-lock", sim.Params{"release": "safe"}, "true"},
	{"redlock", nil, "false"},
	{"redlock", sim.Params{"token": "monotonic"}, "false"},
	{"redlock", sim.Params{"fencing": "on"}, "true"},
	{"redlock", sim.Params{"clock-jump": "on"}, "false"},
	{"redlock", sim.Params{"clock-jump": "on", "fencing": "on"}, "false"},
	{"pacelc", nil, "true"},
	{"pacelc", sim.Params{"read": "local"}, "false"},
	{"election", nil, "false"},
	{"election", sim.Params{"remedy": "fencing"}, "true"},
	{"election", sim.Params{"remedy": "step-down"}, "true"},
	{"check-then-write", nil, "false"},
	{"check-then-write", sim.Params{"remedy": "fencing"}, "true"},
	{"check-then-write", sim.Params{"remedy": "conditional"}, "true"},
	{"setnx-expire", nil, "false"},
	{"setnx-expire", sim.Params{"command": "set-nx-px"}, "true"},
	{"failover", nil, "false"},
	{"failover", sim.Params{"wait": "on"}, "true"},
	{"quorum", nil, "false"},
	{"quorum", sim.Params{"timestamps": "quorum"}, "true"},
	{"eventual", nil, "false"},
	{"eventual", sim.Params{"merge": "crdt"}, "true"},
	{"random", sim.Params{"ops": "200", "crash-rate": "0.1"}, "true"},
	{"random", sim.Params{"ops": "200", "anomaly": "stale-read"}, "false"},
	{"random", sim.Params{"ops": "200", "model": "kv", "anomaly": "lost-update", "unique": "false"}, "false"},
	{"lock-designs", nil, "false"},
	{"lock-designs", sim.Params{"design": "zookeeper", "failure": "failover"}, "true"},
	{"lock-designs", sim.Params{"design": "redlock+fencing", "failure": "clock-jump"}, "false"},
	{"lock-designs", sim.Params{"design": "cas", "failure": "clock-jump"}, "true"},
	{"txn", nil, "true"},
	{"txn", sim.Params{"isolation": "snapshot-isolation"}, "false"},
	{"txn", sim.Params{"isolation": "read-committed", "workload": "rw-register"}, "false"},
	{"txn", sim.Params{"isolation": "broken"}, "false"},
}

// shellWords splits a command line as a POSIX shell would for the simple
// words the scenarios print: spaces separate, single quotes quote.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestScenarioTablesEndWithCheck runs each scenario as a reader would: the
// table's last line is the command that emits and checks its history; that
// command, run as printed, gives the verdict the chapters state and the
// verdict the table announces.
func TestScenarioTablesEndWithCheck(t *testing.T) {
	for _, tc := range scenarioRuns {
		s, ok := sim.LookupWith(tc.name, emittedVerdict(suite.Builtin()))
		if !ok {
			t.Fatalf("no scenario %s", tc.name)
		}
		args := []string{"sim", tc.name}
		for k, v := range tc.params {
			args = append(args, "--"+k, v)
		}
		code, table, errs := run(t, nil, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		out, err := s.Run(tc.params)
		if err != nil {
			t.Fatal(err)
		}
		if out.Expect != tc.want {
			t.Errorf("%v: the scenario expects %s, the chapters %s", args, out.Expect, tc.want)
		}
		lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
		last := strings.TrimSpace(lines[len(lines)-1])
		if !strings.Contains(table, "(verdict "+tc.want+", exit ") {
			t.Errorf("%v: the table does not announce verdict %s:\n%s", args, tc.want, table)
		}
		if sentences := lines[len(lines)-5]; strings.Count(sentences, ". ") < 1 || !strings.HasSuffix(sentences, ".") {
			t.Errorf("%v: no closing sentences before the command: %q", args, sentences)
		}
		simCmd, checkCmd, ok := strings.Cut(last, " && ")
		if !ok || !strings.HasPrefix(simCmd, "histcheck sim "+tc.name+" ") || !strings.HasPrefix(checkCmd, "histcheck check ") {
			t.Fatalf("%v: the table does not end with the check command: %q", args, last)
		}
		dir := t.TempDir()
		simArgs := shellWords(t, strings.TrimPrefix(simCmd, "histcheck "))
		checkArgs := shellWords(t, strings.TrimPrefix(checkCmd, "histcheck "))
		for _, a := range [][]string{simArgs, checkArgs} {
			a[len(a)-1] = filepath.Join(dir, a[len(a)-1])
		}
		if code, _, errs := run(t, nil, simArgs...); code != ExitOK {
			t.Fatalf("%v: exit %d: %s", simArgs, code, errs)
		}
		if _, err := os.Stat(checkArgs[len(checkArgs)-1]); err != nil {
			t.Fatalf("%v: %v", simArgs, err)
		}
		code, report, errs := run(t, nil, checkArgs...)
		wantCode := ExitOK
		if tc.want == "false" {
			wantCode = ExitInvalid
		}
		if code != wantCode || linesOf(report, checkArgs[len(checkArgs)-1]) == "" {
			t.Errorf("%v | %v: exit %d (want %d), stderr %q\n%s", simArgs, checkArgs, code, wantCode, errs, report)
		}
		if strings.Contains(errs, "detected from operation names") {
			t.Errorf("%v: the model was detected, not read from the file: %s", simArgs, errs)
		}
		// The acceptance check: with no flags at all, check gives the
		// verdict the scenario states for plain linearizability.
		plain := out.Plain
		if plain == "" {
			plain = tc.want
		}
		file := checkArgs[len(checkArgs)-1]
		code, report, errs = run(t, nil, "check", file)
		criterion := "linearizable"
		if out.Criterion != "" {
			criterion = out.Criterion // a transactional history's default
		}
		if line := file + "\t" + criterion + "\t" + plain + "\n"; !strings.Contains(report, line) || (code == ExitOK) != (plain == "true") {
			t.Errorf("check %s with no flags: exit %d, want verdict %s; stderr %q\n%s", file, code, plain, errs, report)
		}
	}
}

// linesOf returns the verdict lines of a text report for file, "" when
// there are none.
func linesOf(report, file string) string {
	var out []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, file+"\t") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestScenarioEveryListed checks that every scenario but the random
// workload has a run above, so that a new one cannot skip the loop.
func TestScenarioEveryListed(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range scenarioRuns {
		seen[tc.name] = true
	}
	for _, s := range sim.ScenariosWith(nil) {
		if s.Name != "random" && !seen[s.Name] {
			t.Errorf("scenario %s has no run in scenarioRuns", s.Name)
		}
	}
}

// TestScenarioPartitionKeys checks that check's breakdown of the AP
// histories by key gives the figures the partition scenario computes: the
// keys with a read that missed a write, and those reads.
func TestScenarioPartitionKeys(t *testing.T) {
	res := sim.Partition(sim.PartitionSeed)
	for _, row := range res.Rows {
		split := row.Split()
		_, hist, _ := run(t, nil, "sim", "partition", "--split", split, "--mode", row.Mode, "--emit", "history")
		code, out, errs := run(t, []byte(hist), "check", "-o", "json", "-")
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%s %s: %v: %s", split, row.Mode, err, errs)
		}
		keys := rep.Histories[0].Keys
		if row.Mode == "cp" {
			if code != ExitOK || keys != nil {
				t.Errorf("%s cp: exit %d, keys %+v", split, code, keys)
			}
			continue
		}
		if code != ExitInvalid || keys == nil || keys.Failed != row.FailingKeys || keys.Unplaced != row.Unplaced {
			t.Errorf("%s ap: exit %d, keys %+v, want %d failed keys and %d unplaced reads", split, code, keys, row.FailingKeys, row.Unplaced)
		}
		_, text, _ := run(t, []byte(hist), "check", "-")
		want := fmt.Sprintf("    keys: %d of %d failed; %d of the %d reads on them could not be placed", keys.Failed, keys.Keys, keys.Unplaced, keys.Reads)
		if !strings.Contains(text, "-\tlinearizable\tfalse\n"+want) {
			t.Errorf("%s ap: text lacks %q:\n%s", split, want, text)
		}
	}
}

// TestScenarioKeysOnlyWhenFailing checks that the breakdown by key is left
// out when there is nothing to break down, and that reads on a key whose
// writes fail already are not blamed.
func TestScenarioKeysOnlyWhenFailing(t *testing.T) {
	tests := []struct {
		sim  []string
		want string // the keys line, or "" for none
	}{
		{[]string{"fencing", "--fencing", "on"}, ""},
		{[]string{"lag"}, ""},
		{[]string{"fencing", "--fencing", "off"}, "    keys: 1 of 2 failed\n"},
		{[]string{"redlock", "--token", "monotonic"}, "    keys: 2 of 2 failed\n"},
	}
	for _, tc := range tests {
		_, hist, _ := run(t, nil, append(append([]string{"sim"}, tc.sim...), "--emit", "history")...)
		_, out, _ := run(t, []byte(hist), "check", "-")
		has := strings.Contains(out, "    keys: ")
		if tc.want == "" && has || tc.want != "" && !strings.Contains(out, tc.want) {
			t.Errorf("%v: want keys line %q:\n%s", tc.sim, tc.want, out)
		}
	}
}

// TestScenarioLockDesignsCells checks every cell of the lock design review
// against "histcheck check" on that cell's history, emitted with --design
// and --failure, and the matrix against the review's expectations: the
// consensus services survive a failover and a clock jump, fencing saves
// every lock from a pause and an isolation, compare-and-set needs no lock.
func TestScenarioLockDesignsCells(t *testing.T) {
	code, table, errs := run(t, nil, "sim", "lock-designs")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	designs := sim.LockDesigns()
	cells := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		for _, f := range sim.LockFailures() {
			prefix := "| " + f.Name + " | "
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			vs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, prefix), " |"), " | ")
			if len(vs) != len(designs) {
				t.Fatalf("row %q has %d cells, want %d", line, len(vs), len(designs))
			}
			for i, d := range designs {
				cells[d.ID+"/"+f.ID] = vs[i]
			}
		}
	}
	if len(cells) != len(designs)*len(sim.LockFailures()) {
		t.Fatalf("%d cells in the matrix:\n%s", len(cells), table)
	}
	for _, d := range designs {
		for _, f := range sim.LockFailures() {
			want := "false"
			switch {
			case d.ID == "cas":
				want = "true"
			case f.ID == "pause" || f.ID == "isolation":
				want = verdict(d.Fencing)
			case d.ID == "zookeeper" || d.ID == "zookeeper+fencing" || d.ID == "etcd" || d.ID == "etcd+fencing":
				want = "true"
			}
			key := d.ID + "/" + f.ID
			if cells[key] != want {
				t.Errorf("%s: the matrix says %s, the review expects %s", key, cells[key], want)
			}
			_, hist, errs := run(t, nil, "sim", "lock-designs", "--design", d.ID, "--failure", f.ID, "--emit", "history")
			code, out, _ := run(t, []byte(hist), "check", "-")
			if !strings.Contains(out, "-\tlinearizable\t"+cells[key]+"\n") || (code == ExitOK) != (cells[key] == "true") {
				t.Errorf("%s: the matrix says %s, check says (exit %d) %s%s", key, cells[key], code, out, errs)
			}
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "true"
	}
	return "false"
}

// TestKeyBreakdownSkipsNonRegisterKeys checks that reads are counted only
// on keys of blind writes, that the count says when it left some out, and
// that one keyed model over appends or compare-and-sets counts its failing
// keys (a short history's: each key is checked alone), and the reads of
// its keys of blind writes only.
func TestKeyBreakdownSkipsNonRegisterKeys(t *testing.T) {
	hist := []byte("A: w(x, 1) [0, 1]\nB: r(x, 0) [2, 3]\nC: cas(y, 0, 1) [0, 1]\nD: r(y, 0) [2, 3]\n")
	_, out, errs := run(t, hist, "check", "--format", "notation", "--init", "0", "-m", "x=register,y=cas-register", "-")
	want := "-\tlinearizable\tfalse\n    keys: 2 of 2 failed; 1 of the 1 reads on them could not be placed (each contradicts its key's writes on its own)" +
		" (reads not counted on keys with appends or compare-and-sets, or past the count's limit)\n"
	if !strings.Contains(out, want) {
		t.Errorf("per key: want %q in:\n%s%s", want, out, errs)
	}
	code, out, errs := run(t, hist, "check", "--format", "notation", "--init", "0", "-m", "kv", "-")
	// The same count: x's reads are counted, y's are not.
	if code != ExitInvalid || !strings.Contains(out, want) {
		t.Errorf("kv with a cas: exit %d, want 1 and %q:\n%s%s", code, want, out, errs)
	}
}

// TestScenarioEventualLadder checks the eventual scenario's table of
// verdicts per criterion against "histcheck check -c CRITERION" on each
// run's emitted history.
func TestScenarioEventualLadder(t *testing.T) {
	_, table, _ := run(t, nil, "sim", "eventual")
	hists := map[string]string{}
	for _, merge := range []string{"lww", "crdt"} {
		_, hists[merge], _ = run(t, nil, "sim", "eventual", "--merge", merge, "--emit", "history")
	}
	rows := 0
	for _, c := range checker.AllCriteria {
		for i, merge := range []string{"lww", "crdt"} {
			_, out, errs := run(t, []byte(hists[merge]), "check", "-c", c, "-")
			var got string
			for _, v := range []string{"true", "false", "unknown"} {
				if strings.Contains(out, "-\t"+c+"\t"+v+"\n") {
					got = v
				}
			}
			cells := strings.Split(strings.Trim(lineStarting(table, "| "+c+" |"), "| "), " | ")
			if len(cells) != 3 || cells[1+i] != got {
				t.Errorf("%s %s: table row %v, check says %q%s", merge, c, cells, got, errs)
			}
		}
		rows++
	}
	if rows != 10 {
		t.Errorf("%d criteria", rows)
	}
}

// lineStarting returns the first line of s that begins with prefix.
func lineStarting(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
