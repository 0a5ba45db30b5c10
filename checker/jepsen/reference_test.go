package jepsen_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

// genEvents writes a random history of adds and reads by three clients
// in the notation of edn: operations complete ok, fail or crash (info;
// the client then goes on, as a new logical process). value gives an
// add's value and a read's result, from what was invoked so far.
func genEvents(r *rand.Rand, steps int, addValue func() string, readValue func() string) []string {
	open := map[int]string{} // client -> "f value" of its open operation
	var out []string
	for i := 0; i < steps || len(open) > 0; i++ {
		c := r.IntN(3)
		op, busy := open[c]
		switch {
		case busy:
			delete(open, c)
			f, v, _ := strings.Cut(op, " ")
			typ := []string{"ok", "ok", "ok", "fail", "info"}[r.IntN(5)]
			if f == "read" {
				typ = []string{"ok", "ok", "ok", "info"}[r.IntN(4)]
				if typ == "ok" {
					v = readValue()
				}
			}
			out = append(out, fmt.Sprintf("%d %s %s %s", c, typ, f, v))
		case i < steps && r.IntN(2) == 0:
			v := addValue()
			open[c] = "add " + v
			out = append(out, fmt.Sprintf("%d invoke add %s", c, v))
		case i < steps:
			open[c] = "read nil"
			out = append(out, fmt.Sprintf("%d invoke read nil", c))
		}
	}
	return out
}

// counterPossible is the brute force of a counter read: over every
// world (each crashed add took effect or not) and every set of adds the
// read may have followed (those that completed before it began must be
// among them, those begun after it ended cannot), the values it may
// return.
func counterPossible(h *history.History, read int) map[int64]bool {
	rd := &h.Ops[read]
	var must int64
	var maybe []int64 // adds that may or may not precede the read
	var crashed []int64
	for i := range h.Ops {
		o := &h.Ops[i]
		// Times that tie overlap, but a client's own operations keep its
		// order, the order of h.Ops: its earlier add precedes the read, a
		// later one follows it, whatever their times.
		own := o.Client == rd.Client
		if o.F != "add" || o.Status == history.Fail || own && i > read || !own && o.Call > rd.Return {
			continue
		}
		n, _ := o.Value.Int()
		switch {
		case o.Status == history.OK && (own || o.Return < rd.Call):
			must += n
		case o.Status == history.Info:
			crashed = append(crashed, n)
		default:
			maybe = append(maybe, n)
		}
	}
	out := map[int64]bool{}
	for world := 0; world < 1<<len(crashed); world++ {
		happened := append([]int64(nil), maybe...)
		for j, n := range crashed {
			if world&(1<<j) != 0 {
				happened = append(happened, n)
			}
		}
		for s := 0; s < 1<<len(happened); s++ {
			sum := must
			for j, n := range happened {
				if s&(1<<j) != 0 {
					sum += n
				}
			}
			out[sum] = true
		}
	}
	return out
}

// TestCounterAgainstBruteForce compares each read's bounds with the
// least and greatest value the brute force allows, and, with adds of 1
// (where every value between is reachable), each read's judgement.
func TestCounterAgainstBruteForce(t *testing.T) {
	n := trials()
	r := rand.New(rand.NewPCG(21, 1))
	var valid, invalid, crashed int
	for i := 0; i < n; i++ {
		ones := i%2 == 0
		invoked := 0
		add := func() string {
			v := 1
			if !ones {
				v = r.IntN(4)
			}
			invoked += v
			return fmt.Sprint(v)
		}
		h := edn(t, genEvents(r, 4+r.IntN(8), add, func() string { return fmt.Sprint(r.IntN(invoked + 2)) })...)
		res := run(t, jepsen.Counter, h, nil)
		wantValid := true
		for _, rd := range res.Jepsen.Counter.Reads {
			possible := counterPossible(h, rd.Op)
			lo, hi := extremes(possible)
			if rd.Lower != lo || rd.Upper != hi {
				t.Fatalf("history %d, read %s: bounds [%d %d], brute force [%d %d]\n%s", i, h.Ops[rd.Op].Label(),
					rd.Lower, rd.Upper, lo, hi, strings.Join(eventsOf(h), "\n"))
			}
			if ones {
				wantValid = wantValid && possible[rd.Value]
			}
		}
		if ones && verdictOf(wantValid) != res.Valid {
			t.Fatalf("history %d: verdict %v, brute force %v", i, res.Valid, wantValid)
		}
		if res.Valid == checker.True {
			valid++
		} else {
			invalid++
		}
		if h.Counts().Info > 0 {
			crashed++
		}
	}
	t.Logf("%d valid, %d invalid, %d with crashes", valid, invalid, crashed)
	if valid < n/10 || invalid < n/10 || crashed < n/4 {
		t.Errorf("too few kinds of histories: %d valid, %d invalid, %d with crashes", valid, invalid, crashed)
	}
}

// trials is how many random histories a comparison checks.
func trials() int {
	if testing.Short() {
		return 400
	}
	return 1500
}

func extremes(m map[int64]bool) (lo, hi int64) {
	first := true
	for v := range m {
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
	}
	return lo, hi
}

func verdictOf(ok bool) checker.Verdict {
	if ok {
		return checker.True
	}
	return checker.False
}

// eventsOf lists h's operations for a failure message.
func eventsOf(h *history.History) []string {
	out := make([]string, len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		out[i] = fmt.Sprintf("%s %s [%d, %d]", o.Label(), o.Status, o.Call, o.Return)
	}
	return out
}

// retimed gives h's operations times in which events tie: each event
// takes the previous one's time or the next, at random, so that one
// client's add can return at the instant its read is called, and other
// clients' events can share it.
func retimed(t *testing.T, r *rand.Rand, h *history.History) *history.History {
	t.Helper()
	n := 2 * len(h.Ops)
	at := make([]int64, n+1)
	for p := 1; p <= n; p++ {
		at[p] = at[p-1] + int64(r.IntN(2))
	}
	ops := make([]history.Op, len(h.Ops))
	for i, o := range h.Ops {
		o.Call = at[o.Call]
		if o.Status != history.Info {
			o.Return = at[o.Return]
		}
		ops[i] = o
	}
	out, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCounterTiesAgainstBruteForce compares the bounds of reads in
// histories whose times tie, inside one client and across clients. At a
// tangled instant (history.RealTime.Tangled) keeping every client's order
// orders some operations of different clients too, a choice the brute
// force does not make: those histories are left out.
func TestCounterTiesAgainstBruteForce(t *testing.T) {
	n := trials()
	r := rand.New(rand.NewPCG(22, 1))
	owned, tangled := 0, 0
	for i := 0; i < n; i++ {
		invoked := 0
		add := func() string { invoked++; return "1" }
		h := retimed(t, r, edn(t, genEvents(r, 4+r.IntN(8), add, func() string { return fmt.Sprint(r.IntN(invoked + 2)) })...))
		switch rt := h.RealTime(); {
		case rt.Tangled:
			tangled++
			continue
		case rt.Touching:
			owned++
		}
		res := run(t, jepsen.Counter, h, nil)
		for _, rd := range res.Jepsen.Counter.Reads {
			lo, hi := extremes(counterPossible(h, rd.Op))
			if rd.Lower != lo || rd.Upper != hi {
				t.Fatalf("history %d, read %s: bounds [%d %d], brute force [%d %d]\n%s", i, h.Ops[rd.Op].Label(),
					rd.Lower, rd.Upper, lo, hi, strings.Join(eventsOf(h), "\n"))
			}
		}
	}
	t.Logf("%d of %d histories with a client's operations touching, %d tangled (left out)", owned, n, tangled)
	if owned < n/10 {
		t.Errorf("only %d of %d histories have a client's operations touching", owned, n)
	}
}
