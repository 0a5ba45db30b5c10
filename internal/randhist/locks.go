package randhist

import (
	"math/rand/v2"

	"github.com/histcheck/histcheck/history"
)

// This file generates histories for the owner-aware lock, the lease and the
// fenced register. As for the other models, each history is a real
// sequential execution (every operation takes effect at a point inside its
// interval) that is linearizable until Config.Corrupt alters one operation:
// a refused acquire, release or renew is reported as successful, a fencing
// token goes backwards, an acquire becomes a release or the reverse, or a
// rejected stale write is reported as acknowledged.

// Lock generates a history of acquire and release of one owner-aware lock.
// Clients mostly acquire when they do not hold the lock and release when
// they do; most successful acquires return the next fencing token (in the
// token field or as the value), with gaps between tokens.
func Lock(r *rand.Rand, cfg Config) *history.History {
	return lockHistory(r, cfg, 0)
}

// Lease generates a history of acquire, renew and release of one lease of
// length ttl (at least 1): an acquire succeeds when the lock is free or the
// holder's lease has expired at the acquire's point of effect. Some acquires
// and renews carry their own ttl field, between ttl/2 and 2·ttl.
func Lease(r *rand.Rand, cfg Config, ttl int64) *history.History {
	return lockHistory(r, cfg, max(ttl, 1))
}

// FencedRegister generates reads and writes of integers on storage that
// rejects writes whose token is lower than the highest it has accepted.
// Clients take fresh tokens now and then, so writes with stale tokens occur
// and fail; some writes carry no token.
func FencedRegister(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	value := g.cfg.Init
	maxTok, hasMax := int64(0), false
	counter := int64(10 + r.IntN(30))
	tokens := make(map[string]int64) // each client's current token
	ops := g.timeline(func(op *history.Op, _ int64) {
		if r.IntN(10) < 4 {
			op.F, op.Value = "read", history.NilValue
			if op.Status == history.OK {
				op.Value = value
			}
			return
		}
		op.F, op.Value = "write", g.intValue()
		if _, ok := tokens[op.Client]; !ok || r.IntN(10) < 3 {
			counter += 1 + int64(r.IntN(2))
			tokens[op.Client] = counter
		}
		tok, fenced := tokens[op.Client], r.IntN(5) != 0
		if fenced {
			op.Token = history.IntValue(tok)
		}
		if fenced && hasMax && tok < maxTok {
			if op.Status == history.OK {
				op.Status = history.Fail
			}
			return
		}
		if g.applies(op) {
			value = op.Value
			if fenced {
				maxTok, hasMax = tok, true
			}
		}
	})
	if r.Float64() < g.cfg.Corrupt {
		g.corruptFenced(ops)
	}
	return g.assemble(ops)
}

// lockHistory generates a lock history, or a lease history when ttl > 0.
func lockHistory(r *rand.Rand, cfg Config, ttl int64) *history.History {
	g := newGen(r, cfg)
	holder := ""      // "" when free
	var expires int64 // end of the holder's lease (lease only)
	counter := int64(r.IntN(40))
	ops := g.timeline(func(op *history.Op, point int64) {
		c := op.Client
		opTTL := ttl
		if ttl > 0 && r.IntN(10) < 3 {
			opTTL = ttl/2 + int64(r.IntN(int(ttl)*3/2+1))
			opTTL = max(opTTL, 1)
		}
		var ok bool
		switch n := r.IntN(8); {
		case holder == c && ttl > 0 && n < 3:
			op.F = "renew"
			ok = point < expires
		case (holder == c) == (n < 6):
			op.F = "release"
			ok = holder == c
		default:
			op.F = "acquire"
			ok = holder == "" || ttl > 0 && point >= expires
		}
		if op.F != "release" && ttl > 0 && opTTL != ttl {
			op.Extra = []history.Field{{Name: "ttl", Value: history.IntValue(opTTL)}}
		}
		if !ok {
			if op.Status == history.OK {
				op.Status = history.Fail
			}
			return
		}
		if !g.applies(op) {
			return
		}
		switch op.F {
		case "acquire":
			holder, expires = c, point+opTTL
			counter += 1 + int64(r.IntN(2))
			if op.Status == history.OK {
				switch r.IntN(5) {
				case 0: // no token
				case 1:
					op.Value = history.IntValue(counter)
				default:
					op.Token = history.IntValue(counter)
				}
			}
		case "renew":
			expires = point + opTTL
		case "release":
			holder = ""
		}
	})
	if r.Float64() < g.cfg.Corrupt {
		g.corruptLock(ops)
	}
	return g.assemble(ops)
}

// timeline is run's loop with the point of effect given to step: each
// operation takes effect at a point inside its interval, after the previous
// operation's point.
func (g *gen) timeline(step func(op *history.Op, point int64)) []history.Op {
	r, cfg := g.r, g.cfg
	busy := make([]int64, cfg.Processes)
	for i := range busy {
		busy[i] = -1
	}
	dead := make([]bool, cfg.Processes)
	var ops []history.Op
	var point int64
	for len(ops) < cfg.Ops {
		var live []int
		for p, d := range dead {
			if !d {
				live = append(live, p)
			}
		}
		if len(live) == 0 {
			break
		}
		p := live[r.IntN(len(live))]
		point = max(point+1+int64(r.IntN(6)), busy[p]+1)
		op := history.Op{
			Client:  string(rune('A' + p)),
			Process: p,
			Call:    max(busy[p]+1, point-int64(r.IntN(8))),
			Return:  point + int64(r.IntN(8)),
			Status:  history.OK,
		}
		switch x := r.Float64(); {
		case x < cfg.CrashRate:
			op.Status = history.Info
			op.Return = history.Infinity
			dead[p] = true
		case x < cfg.CrashRate+cfg.FailRate:
			op.Status = history.Fail
		}
		busy[p] = op.Return
		step(&op, point)
		ops = append(ops, op)
	}
	return ops
}

// corruptLock alters one operation whose outcome is known: a refused
// acquire, release or renew reported as successful, a token lowered to or
// below an earlier one, or a successful acquire turned into a release or
// the reverse.
func (g *gen) corruptLock(ops []history.Op) {
	var tokens []int64
	var changes []func()
	for i := range ops {
		op := &ops[i]
		tok, hasTok := lockToken(op)
		switch {
		case op.Status == history.Fail:
			changes = append(changes, func() { op.Status = history.OK })
		case op.Status == history.OK && op.F == "acquire":
			if hasTok && len(tokens) > 0 {
				prev := tokens[g.r.IntN(len(tokens))]
				changes = append(changes, func() { setLockToken(op, prev-int64(g.r.IntN(2))) })
			}
			changes = append(changes, func() { op.F, op.Value, op.Token = "release", history.Value{}, history.Value{} })
		case op.Status == history.OK && op.F == "release":
			changes = append(changes, func() { op.F = "acquire" })
		}
		if hasTok {
			tokens = append(tokens, tok)
		}
	}
	if len(changes) > 0 {
		changes[g.r.IntN(len(changes))]()
	}
}

// lockToken returns an acquire's token, from the token field or the value.
func lockToken(op *history.Op) (int64, bool) {
	if n, ok := op.Token.Int(); ok {
		return n, true
	}
	return op.Value.Int()
}

func setLockToken(op *history.Op, tok int64) {
	if !op.Token.IsNone() {
		op.Token = history.IntValue(tok)
	} else {
		op.Value = history.IntValue(tok)
	}
}

// corruptFenced alters one operation whose outcome is known: a rejected
// write reported as acknowledged, a read returning another value, or an
// acknowledged write's token lowered.
func (g *gen) corruptFenced(ops []history.Op) {
	var changes []func()
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Status == history.Fail && op.F == "write":
			changes = append(changes, func() { op.Status = history.OK })
		case op.Status == history.OK && op.F == "read":
			changes = append(changes, func() {
				w := g.intValue()
				if w == op.Value {
					w = history.IntValue(int64(g.cfg.Values))
				}
				op.Value = w
			})
		case op.Status == history.OK && op.F == "write" && !op.Token.IsNone():
			changes = append(changes, func() {
				n, _ := op.Token.Int()
				op.Token = history.IntValue(n - 1 - int64(g.r.IntN(3)))
			})
		}
	}
	if len(changes) > 0 {
		changes[g.r.IntN(len(changes))]()
	}
}
