package randhist

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

var collectionGens = map[string]func(*rand.Rand, Config) *history.History{
	"set":             Set,
	"fifo-queue":      FIFOQueue,
	"unordered-queue": UnorderedQueue,
	"counter":         Counter,
}

// TestCollectionsValid checks the pairing rules and that the generators
// produce what the models read: every operation, failures, crashes, failed
// (empty) dequeues and reads returned as lists.
func TestCollectionsValid(t *testing.T) {
	want := map[string][]string{
		"set":             {"add", "read", "fail", "info", "list"},
		"fifo-queue":      {"enqueue", "dequeue", "fail", "info", "empty"},
		"unordered-queue": {"enqueue", "dequeue", "fail", "info", "empty"},
		"counter":         {"add", "read", "fail", "info", "negative"},
	}
	for name, gen := range collectionGens {
		r := rand.New(rand.NewPCG(5, 7))
		seen := map[string]int{}
		for n := 0; n < 500; n++ {
			cfg := Default(name)
			cfg.Ops = 1 + r.IntN(7)
			h := gen(r, cfg)
			if len(h.Ops) == 0 || len(h.Ops) > cfg.Ops {
				t.Fatalf("%s: %d operations for Ops = %d", name, len(h.Ops), cfg.Ops)
			}
			v, err := history.FromOps(h.Ops)
			if err != nil {
				t.Fatalf("%s: history rejected: %v\n%+v", name, err, h.Ops)
			}
			if !reflect.DeepEqual(v.Ops, h.Ops) || v.Processes != h.Processes {
				t.Fatalf("%s: validation changed the history", name)
			}
			for _, o := range h.Ops {
				seen[o.F]++
				seen[o.Status.String()]++
				switch {
				case o.Status == history.OK && o.F == "read" && o.Value.Kind() == history.List:
					seen["list"]++
				case o.Status == history.Fail && o.F == "dequeue" && o.Value.IsNil():
					seen["empty"]++
				case o.F == "add" && o.Value.Kind() == history.Int && o.Value.Text()[0] == '-':
					seen["negative"]++
				}
			}
		}
		for _, w := range want[name] {
			if seen[w] < 20 {
				t.Errorf("%s: only %d of %s in 500 histories (%v)", name, seen[w], w, seen)
			}
		}
	}
}

func TestCollectionsDeterministic(t *testing.T) {
	for name, gen := range collectionGens {
		a := gen(rand.New(rand.NewPCG(3, 4)), Default(name))
		b := gen(rand.New(rand.NewPCG(3, 4)), Default(name))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different histories", name)
		}
	}
}
