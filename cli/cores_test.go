package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/report"
)

// internalName matches names histcheck once made up for logical processes
// ("B~1", "A#2"); the files below name clients A, B, C, C1…C5.
var internalName = regexp.MustCompile(`\b[A-Z][0-9]*[~#][0-9]`)

// TestRedisUnsafeCore is the core of the Redis unsafe release under the
// lease model: A's release succeeded while B held the lock. The core must
// keep both acquires as recorded (weakened, A's acquire could be placed
// after B's, and A would hold the lock it releases), fail when checked on
// its own, and name the clients as the file does.
func TestRedisUnsafeCore(t *testing.T) {
	file := filepath.Join("..", "testdata", "histories", "locks", "redis-unsafe.json")
	var out, errb bytes.Buffer
	if code := ExitCode(Main([]string{"check", "--model", "lease", "--ttl", "5000", file}, nil, &out, &errb)); code != ExitInvalid {
		t.Fatalf("exit %d; stderr %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{
		"      core: A:acquire(lock, a7f3), B:acquire(lock, 9c2e), A:release(lock, a7f3)\n",
		"a release by A succeeded but B holds the lock",
	} {
		// The story is wrapped: its words are looked for across lines.
		if !strings.Contains(text, want) && !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if internalName.MatchString(text) || strings.Contains(text, "weakened") {
		t.Errorf("core names an internal process or weakens an acquire:\n%s", text)
	}
	if n := checkCoresAlone(t, []string{"--model", "lease", "--ttl", "5000"}, file); n != 1 {
		t.Errorf("%d cores checked, want 1", n)
	}
}

// TestCoresFailAloneFromJSON cuts every core of the named test histories
// out of the JSON report (Core.WriteHistory), checks it with the command
// line on its own, with the result's model and the report's settings,
// and expects a violation of the same criterion.
func TestCoresFailAloneFromJSON(t *testing.T) {
	locks := filepath.Join("..", "testdata", "histories", "locks")
	_, h2, h3 := textbookFiles(t)
	lin := []string{"-c", "linearizable,sequential"}
	tests := []struct {
		args  []string
		file  string
		cores int
	}{
		{append([]string{"-m", "lease", "--ttl", "5s"}, lin...), filepath.Join(locks, "redis-unsafe.json"), 2},
		// The same as Jepsen events, ordered by their place in the file
		// while the lease's expiry is measured on their times.
		{append([]string{"-m", "lease", "--ttl", "5s"}, lin...), filepath.Join("..", "testdata", "histories", "order", "redis-unsafe-events.json"), 2},
		{append([]string{"-m", "lease"}, lin...), filepath.Join(locks, "redis-unsafe.json"), 2},
		// Under lock and mutex, redis-unsafe is refuted by counting the
		// holders (no order ends with one): that violation names its
		// acquires and is not shrunk, under linearizability as under
		// sequential consistency. redis-safe is sequentially consistent,
		// and its linearizability core is cut out.
		{append([]string{"-m", "lock"}, lin...), filepath.Join(locks, "redis-unsafe.json"), 0},
		{append([]string{"-m", "lock"}, lin...), filepath.Join(locks, "redis-safe.json"), 1},
		{append([]string{"-m", "mutex"}, lin...), filepath.Join(locks, "redis-unsafe.json"), 0},
		{append([]string{"--model", "lock=lease,stock=fenced-register", "--ttl", "10s"}, lin...),
			filepath.Join(locks, "stock-nofencing.json"), 1},
		{append([]string{"--model", "lock=lock,stock=fenced-register"}, lin...), filepath.Join(locks, "stock-nofencing.json"), 2},
		{append([]string{"--model", "lock=lease,stock=fenced-register", "--ttl", "20s"}, lin...),
			filepath.Join(locks, "stock-fencing.json"), 1},
		{lin, h2, 1},
		{lin, h3, 2},
	}
	for _, tt := range tests {
		if n := checkCoresAlone(t, tt.args, tt.file); n != tt.cores {
			t.Errorf("%v %s: %d cores checked alone, want %d", tt.args, filepath.Base(tt.file), n, tt.cores)
		}
	}
}

// checkCoresAlone checks file with args as JSON, writes each core it
// reports back as a history, checks that alone and fails the test unless
// it violates the same criterion. It returns the number of cores.
func checkCoresAlone(t *testing.T, args []string, file string) int {
	t.Helper()
	var out, errb bytes.Buffer
	Main(append(append([]string{"check", "-o", "json"}, args...), file), nil, &out, &errb)
	dec := json.NewDecoder(&out)
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var rep report.Report
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("%v %s: %v; stderr %s", args, file, err, errb.String())
	}
	n := 0
	for hi := range rep.Histories {
		hr := &rep.Histories[hi]
		for _, r := range hr.Results {
			for _, v := range r.Violations {
				if v.Core == nil {
					continue
				}
				n++
				name := r.Model
				if name == "" {
					name = hr.Model
				}
				var src bytes.Buffer
				if err := v.Core.WriteHistory(&src, hr, name); err != nil {
					t.Fatal(err)
				}
				if internalName.MatchString(v.Core.Explanation + v.Core.Timeline) {
					t.Errorf("%v %s: core names an internal process:\n%s\n%s", args, file, v.Core.Timeline, v.Core.Explanation)
				}
				alone := filepath.Join(t.TempDir(), "core.json")
				if err := os.WriteFile(alone, src.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				var o2, e2 bytes.Buffer
				code := ExitCode(Main([]string{"check", "-c", r.Consistency, alone}, nil, &o2, &e2))
				want := alone + "\t" + r.Consistency + "\t" + checker.False.String() + "\n"
				if code != ExitInvalid || !strings.HasPrefix(o2.String(), want) {
					t.Errorf("%v %s: the %s core alone gives exit %d:\n%s%s\nthe core:\n%s", args, file, r.Consistency,
						code, o2.String(), e2.String(), src.String())
				}
			}
		}
	}
	return n
}
