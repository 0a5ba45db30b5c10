package regdp

import "context"

// When the narrow sweep finds no way through at some return, the history
// is often not linearizable there, and the exact sweep would have to
// retrace everything before it to say so. A window settles it cheaply:
// the events from some call or return before that one up to it, with
// what came before and after relaxed. Operations that returned before the
// window are left out; the writes and compare-and-sets pending at its
// start or end become operations of unknown outcome (they may take effect
// at any moment after their call, or never); the reads pending then are
// left out; and the register may hold any value when the window starts.
// Every linearization of the history gives one of the window (start from
// the value held at that moment, and keep the pending operations that
// take effect within it), so when the exact
// sweep of the window finds no configuration at the very return where the
// narrow sweep stopped, the history is not linearizable, and that return
// is where the exact sweep of the whole history would have stopped too:
// the narrow sweep's violation (its operation, and a legal prefix that
// reaches that gap) is the exact sweep's.

// windowSpans returns the lengths, in events, of the windows tried before
// the return where the narrow sweep stopped, shortest first.
// A window that short often confirms (with 32 or 64 clients, 64 events
// go back over the writes that made a stale read stale); longer ones
// carry more operations of unknown outcome, and their gaps grow.
func windowSpans() []int { return []int{64, 128, 256} }

// windowStates bounds the configurations a window may explore in all, and
// windowGap those of one gap: past them, the window confirms nothing and
// the exact sweep runs.
const (
	windowStates = 1 << 20
	windowGap    = 1 << 13
)

// confirmed reports whether a window of one of the spans before the
// return event dead, at which the narrow sweep stopped, shows that no
// configuration survives there. grow is asked for the windows' memory as
// for the sweep's.
func confirmed(ctx context.Context, p *problem, dead int, spans []int, grow func(int64) bool) bool {
	for _, span := range spans {
		from := dead - span
		if from <= 0 || ctx.Err() != nil {
			return false
		}
		w, orig := p.window(from, dead)
		s := newCASSearch(w)
		s.grow, s.maxStates, s.limit = grow, windowStates, windowGap
		switch s.run(ctx) {
		case outRefuted:
			return orig[s.deadAt] == dead
		case outStopped:
			return false
		}
	}
	return false
}

// window returns the relaxed problem of the events from index from to
// index to (see above), and for each of its events the index of the
// original one (-1 for the calls its start adds).
func (p *problem) window(from, to int) (*problem, []int) {
	w := &problem{h: p.h, vals: p.vals, init: p.init, shown: p.shown, cas: true, anyInit: true}
	idx := make([]int32, len(p.ops)) // p's op -> w's, or -1
	var orig []int
	add := func(o int32, r rop) {
		idx[o] = int32(len(w.ops))
		r.slot, r.call, r.ret = -1, int32(len(w.events)), -1
		w.ops = append(w.ops, r)
		w.events = append(w.events, event{op: idx[o]})
		orig = append(orig, -1)
	}
	for i := range p.ops {
		idx[i] = -1
		r := p.ops[i]
		if int(r.call) >= from {
			continue
		}
		// Pending at the start: a crashed operation stays one, a write
		// or compare-and-set becomes one; the rest are left out.
		if r.kind == kCrash || r.kind == kWrite && int(r.ret) >= from {
			r.kind = kCrash
			add(int32(i), r)
		}
	}
	for e := from; e <= to; e++ {
		ev := p.events[e]
		r := p.ops[ev.op]
		switch {
		case !ev.ret && (r.kind == kRead || r.kind == kAny) && int(r.ret) > to:
			// Pending at the end: left out.
		case !ev.ret:
			if r.kind == kWrite && int(r.ret) > to {
				r.kind = kCrash
			}
			add(ev.op, r)
			orig[len(orig)-1] = e
		case idx[ev.op] >= 0 && w.ops[idx[ev.op]].kind != kCrash:
			w.ops[idx[ev.op]].ret = int32(len(w.events))
			w.events = append(w.events, event{op: idx[ev.op], ret: true})
			orig = append(orig, e)
		}
	}
	return w, orig
}
