package check_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/sim"
)

var followRuns = flag.Int("follow-runs", 0, "random histories per model in TestFollowMatchesOffline (0: 1,000, or 60 with -short)")

// followModels are the models of the differential test, each with its
// generator.
var followModels = []struct {
	name string
	gen  func(r *rand.Rand, cfg randhist.Config) *history.History
}{
	{"register", randhist.Register},
	{"cas-register", randhist.CASRegister},
	{"kv", randhist.KV},
	{"mutex", randhist.Mutex},
	{"lock", randhist.Lock},
	{"set", randhist.Set},
	{"fifo-queue", randhist.FIFOQueue},
	{"unordered-queue", randhist.UnorderedQueue},
}

// follow checks the JSON Lines text as it is written, as check --follow
// does, returning the violations found on the way and the outcome.
func follow(t *testing.T, text []byte, model string, lim check.StreamLimits) ([]check.Found, check.Outcome, error) {
	t.Helper()
	var found []check.Found
	s, err := check.NewStream(check.Request{Model: model}, lim, func(f check.Found) { found = append(found, f) })
	if err != nil {
		t.Fatal(err)
	}
	lines, err := format.NewLineEvents(bytes.NewReader(text), "")
	if err != nil {
		t.Fatal(err)
	}
	for {
		e, err := lines.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return found, s.Finish(), err
		}
		if err := s.Add(&e); err != nil {
			return found, s.Finish(), err
		}
	}
	return found, s.Finish(), nil
}

// offline checks the same text read whole.
func offline(t *testing.T, text []byte, model string) check.Outcome {
	t.Helper()
	h, err := format.Read("h.jsonl", bytes.NewReader(text), format.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	out, err := check.Run(context.Background(), h, check.Request{Model: model})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// verdicts lists an outcome's verdicts, with their keys.
func verdicts(out check.Outcome) string {
	var b strings.Builder
	for _, r := range out.Results {
		if r.PerKey {
			fmt.Fprintf(&b, "%s:", r.Key)
		}
		fmt.Fprintf(&b, "%s ", r.Valid)
	}
	return b.String()
}

// failing lists the keys whose linearizability fails.
func failing(out check.Outcome) map[string]bool {
	keys := map[string]bool{}
	for _, r := range out.Results {
		if r.Valid == checker.False {
			keys[r.Key.String()] = true // None for a history checked whole
		}
	}
	return keys
}

// TestFollowMatchesOffline is the differential test of the online check:
// on random histories of every model, with crashed operations and times
// that tie, following the file gives the verdict of checking it whole,
// and each violation reported on the way is one the whole check finds.
func TestFollowMatchesOffline(t *testing.T) {
	runs := *followRuns
	if runs == 0 {
		runs = 1000
		if testing.Short() {
			runs = 60
		}
	}
	for _, m := range followModels {
		t.Run(m.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(35, uint64(len(m.name))))
			counts := map[checker.Verdict]int{}
			for i := 0; i < runs; i++ {
				cfg := randhist.Default(m.name)
				cfg.Ops = 4 + r.IntN(12)
				cfg.Processes = 1 + r.IntN(4)
				cfg.Ties = r.IntN(4) // 2 and 3 make times tie
				cfg.CrashRate = 0.15
				h := m.gen(r, cfg)
				var buf bytes.Buffer
				if err := format.Write(&buf, h, format.JSONL); err != nil {
					t.Fatal(err)
				}
				text := buf.Bytes()
				want := offline(t, text, m.name)
				// Every other history restarts its sweeps after each
				// operation, where the model allows.
				lim := check.StreamLimits{}
				if i%2 == 1 {
					lim.Segment = 1
				}
				found, got, err := follow(t, text, m.name, lim)
				if err != nil {
					t.Fatalf("history %d: %v\n%s", i, err, text)
				}
				if verdicts(got) != verdicts(want) {
					t.Fatalf("history %d: following gives %s, the whole check %s\n%s", i, verdicts(got), verdicts(want), text)
				}
				bad := failing(want)
				for _, f := range found {
					k := f.Result.Key
					if !want.Results[0].PerKey {
						k = history.Value{} // a keyed model's verdict is the whole history's
					}
					if !bad[k.String()] {
						t.Fatalf("history %d: following reports a violation of key %s that the whole check does not find\n%s", i, f.Result.Key, text)
					}
				}
				if (len(found) == 0) != (len(bad) == 0) {
					t.Fatalf("history %d: %d violations found while following, %d keys fail\n%s", i, len(found), len(bad), text)
				}
				counts[got.Results[0].Valid]++
			}
			t.Logf("%s: %v", m.name, counts)
		})
	}
}

// TestFollowLive follows sim.Live's key-value workload with crashed
// writes: linearizable as generated, and with one stale read injected
// the violation is found when the read returns, with a core that names
// it, and the whole check agrees. Small segments and a small window make
// the sweeps restart often and the window turn round.
func TestFollowLive(t *testing.T) {
	for _, stale := range []int64{0, 15_000} {
		t.Run(fmt.Sprintf("stale-read-at-%d", stale), func(t *testing.T) {
			var found []check.Found
			s, err := check.NewStream(check.Request{Model: "kv", Init: history.IntValue(0)},
				check.StreamLimits{Segment: 8, Window: 8192}, func(f check.Found) { found = append(found, f) })
			if err != nil {
				t.Fatal(err)
			}
			var events []history.Event
			var staleIdx int64 = -1
			err = sim.Live(sim.LiveOptions{Ops: 20_000, Clients: 8, Keys: 20, Writes: 0.5, CrashRate: 0.05, StaleAt: stale, Seed: 7},
				func(ev sim.LiveEvent) error {
					events = append(events, *ev.Event)
					if ev.Stale {
						staleIdx = ev.Event.Index
						if len(found) != 0 {
							t.Errorf("a violation was reported before the stale read returned")
						}
					}
					e := *ev.Event
					return s.Add(&e)
				})
			if err != nil {
				t.Fatal(err)
			}
			out := s.Finish()
			h, err := history.Pair(events)
			if err != nil {
				t.Fatal(err)
			}
			want, err := check.Run(context.Background(), h, check.Request{Model: "kv", Init: history.IntValue(0)})
			if err != nil {
				t.Fatal(err)
			}
			if verdicts(out) != verdicts(want) {
				t.Fatalf("following gives %s, the whole check %s", verdicts(out), verdicts(want))
			}
			if stale == 0 {
				if len(found) != 0 || out.Results[0].Valid != checker.True {
					t.Fatalf("found %d violations in a linearizable history; verdict %s", len(found), out.Results[0].Valid)
				}
				return
			}
			if len(found) != 1 {
				t.Fatalf("found %d violations, want the stale read's", len(found))
			}
			f := found[0]
			if f.Result.Core == nil || f.History == nil {
				t.Fatalf("the violation has no core: %s", f.Result.Reason)
			}
			if f.Events != staleIdx+1 {
				t.Errorf("found after %d events, want right after the stale read's completion (event %d)", f.Events, staleIdx+1)
			}
		})
	}
}

// TestFollowAfterACrash: a client that goes on under its name after an
// operation of unknown outcome is another logical process, as when the
// history is read whole: its crashed write may take effect after its
// next operation.
func TestFollowAfterACrash(t *testing.T) {
	seen := map[checker.Verdict]bool{}
	for _, text := range []string{
		`{"process":0,"type":"invoke","f":"write","value":1}
{"process":0,"type":"info","f":"write","value":1}
{"process":0,"type":"invoke","f":"read","value":null}
{"process":0,"type":"ok","f":"read","value":null}
{"process":1,"type":"invoke","f":"read","value":null}
{"process":1,"type":"ok","f":"read","value":1}
`,
		`{"process":0,"type":"invoke","f":"write","value":1}
{"process":0,"type":"info","f":"write","value":1}
{"process":0,"type":"invoke","f":"read","value":null}
{"process":0,"type":"ok","f":"read","value":1}
{"process":1,"type":"invoke","f":"read","value":null}
{"process":1,"type":"ok","f":"read","value":null}
`,
	} {
		want := offline(t, []byte(text), "register")
		_, got, err := follow(t, []byte(text), "register", check.StreamLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if verdicts(got) != verdicts(want) {
			t.Errorf("following gives %s, the whole check %s\n%s", verdicts(got), verdicts(want), text)
		}
		seen[got.Results[0].Valid] = true
	}
	if !seen[checker.True] || !seen[checker.False] {
		t.Errorf("verdicts %v, want one of each", seen)
	}
}

// BenchmarkStream follows sim.Live's key-value workload of 500,000
// operations (32 clients, 1,000 keys, 1 % of writes crashed).
func BenchmarkStream(b *testing.B) {
	var events []history.Event
	err := sim.Live(sim.LiveOptions{Ops: 500_000, Clients: 32, Keys: 1000, Writes: 0.5, CrashRate: 0.01, Seed: 1},
		func(ev sim.LiveEvent) error {
			events = append(events, *ev.Event)
			return nil
		})
	if err != nil {
		b.Fatal(err)
	}
	start := cpuTime()
	for b.Loop() {
		s, err := check.NewStream(check.Request{Model: "kv", Init: history.IntValue(0)}, check.StreamLimits{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := range events {
			if err := s.Add(&events[i]); err != nil {
				b.Fatal(err)
			}
		}
		if out := s.Finish(); out.Results[0].Valid != checker.True {
			b.Fatalf("verdict %s", out.Results[0].Valid)
		}
	}
	// Processor time, which other processes' work changes less than the
	// time that passes.
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
