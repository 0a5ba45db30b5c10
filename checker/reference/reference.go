// Package reference is the exact checker every fast checker is tested
// against. It tries every order of a small history's operations, with one
// model state per key, memoising only the configurations that failed; it
// relies on no pruning, no splitting by key and no special case of any model,
// so that its verdicts are plainly right.
package reference

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// MaxOps is the largest number of operations that did not fail the
// reference checker accepts; its search is exponential.
const MaxOps = 12

// TooLargeError is returned for a history with more than MaxOps operations
// that did not fail.
type TooLargeError struct{ Ops int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the reference checker handles at most %d operations that did not fail; this history has %d", MaxOps, e.Ops)
}

// Linearizable decides whether h is linearizable for m: whether some order of
// its operations that took effect (every completed one, any subset of those
// with unknown outcome) respects real time and is legal in m.
func Linearizable[S comparable](ctx context.Context, m model.Model[S], h *history.History) (checker.Result, error) {
	return check(ctx, m, h, checker.RealTime)
}

// Sequential decides whether h is sequentially consistent for m: like
// Linearizable, but the order need only keep each process's operations in
// the order the process issued them.
func Sequential[S comparable](ctx context.Context, m model.Model[S], h *history.History) (checker.Result, error) {
	return check(ctx, m, h, checker.ProcessOrder)
}

// config is a search configuration: which operations are placed and the
// state of every key. Arrays of a comparable type are comparable, so configs
// are map keys as they are.
type config[S comparable] struct {
	placed uint32
	states [MaxOps]S
}

type search[S comparable] struct {
	ctx context.Context
	m   model.Model[S]
	c   *checker.Compiled
	h   *history.History
	// slot[i] is the index of operation i's key in config.states.
	slot []int
	// order lists the operations in the order candidates are tried:
	// earliest return first (as Wing and Gong do), ties by position.
	order    []int
	required uint32 // operations that completed ok and must be placed
	// before[i]: operations that must be placed before i may be; after[i]:
	// operations whose placement forbids placing i.
	before, after []uint32
	failed        map[config[S]]bool
	path          []int
	best          []int // the longest legal prefix seen
	bestCfg       config[S]
	states        int64
	err           error
}

func check[S comparable](ctx context.Context, m model.Model[S], h *history.History, ord checker.Order) (checker.Result, error) {
	start := time.Now()
	criterion := checker.Linearizable
	if ord == checker.ProcessOrder {
		criterion = checker.Sequential
	}
	n := 0
	for i := range h.Ops {
		if h.Ops[i].Status != history.Fail {
			n++
		}
	}
	if n > MaxOps {
		return checker.Result{}, &TooLargeError{Ops: n}
	}
	c, err := checker.Compile(m, h, nil, nil, false)
	if err != nil {
		return checker.Result{}, fmt.Errorf("reference checker: %w", err)
	}
	s := newSearch(ctx, m, h, c, ord)
	ok := s.dfs(s.initial())
	res := checker.Result{
		Criterion: criterion,
		Method:    "reference",
		Stats:     checker.Stats{States: s.states, MemoSize: int64(len(s.failed)), Partitions: 1, Ops: len(c.Ops)},
	}
	switch {
	case s.err != nil:
		res.Valid = checker.Unknown
		res.Reason = "search stopped: " + s.err.Error()
	case ok:
		res.Valid = checker.True
		var placed uint32
		for _, i := range s.path {
			res.Witness = append(res.Witness, c.Pos[i])
			placed |= 1 << i
		}
		for i := range c.Ops {
			if placed&(1<<i) == 0 {
				res.Dropped = append(res.Dropped, c.Pos[i])
			}
		}
	default:
		res.Valid = checker.False
		res.Violations = []checker.Violation{s.violation()}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func newSearch[S comparable](ctx context.Context, m model.Model[S], h *history.History, c *checker.Compiled, ord checker.Order) *search[S] {
	n := len(c.Ops)
	s := &search[S]{ctx: ctx, m: m, c: c, h: h, slot: make([]int, n), before: make([]uint32, n), after: make([]uint32, n),
		failed: make(map[config[S]]bool)}
	if m.Info().Keyed {
		keys := make(map[history.Value]int)
		for i, p := range c.Pos {
			k := h.Ops[p].Key
			if _, ok := keys[k]; !ok {
				keys[k] = len(keys)
			}
			s.slot[i] = keys[k]
		}
	}
	for i := range c.Ops {
		s.order = append(s.order, i)
		if !c.Ops[i].Unknown {
			s.required |= 1 << i
		}
	}
	sort.SliceStable(s.order, func(a, b int) bool { return c.Ops[s.order[a]].Return < c.Ops[s.order[b]].Return })
	for i := range c.Ops {
		for j := range c.Ops {
			if i == j {
				continue
			}
			oi, oj := &c.Ops[i], &c.Ops[j]
			switch ord {
			case checker.RealTime:
				// Only a completed operation can be required first: one of
				// unknown outcome may never happen, and its return is
				// infinite anyway. A client runs one operation after
				// another, whatever its clock says (positions follow
				// invocation order, so a client's are in its order).
				sameClient := h.Ops[c.Pos[i]].Client == h.Ops[c.Pos[j]].Client
				if !oj.Unknown && (oj.Return < oi.Call || sameClient && j < i) {
					s.before[i] |= 1 << j
				}
			case checker.ProcessOrder:
				// Positions follow invocation order, so a process's
				// operations are in position order.
				if oi.Proc == oj.Proc && j < i && !oj.Unknown {
					s.before[i] |= 1 << j
				}
				if oi.Proc == oj.Proc && j > i {
					s.after[i] |= 1 << j
				}
			}
		}
	}
	return s
}

func (s *search[S]) initial() config[S] {
	var cfg config[S]
	init := s.m.Init(s.c.Table)
	for i := range cfg.states {
		cfg.states[i] = init
	}
	s.bestCfg = cfg
	return cfg
}

// eligible reports whether operation i may be placed next in cfg.
func (s *search[S]) eligible(cfg config[S], i int) bool {
	return cfg.placed&(1<<i) == 0 && s.before[i]&^cfg.placed == 0 && s.after[i]&cfg.placed == 0
}

// dfs extends s.path from cfg and reports whether it reached a
// configuration where every required operation is placed.
func (s *search[S]) dfs(cfg config[S]) bool {
	if cfg.placed&s.required == s.required {
		return true
	}
	if s.failed[cfg] {
		return false
	}
	s.states++
	if s.states%256 == 1 {
		if err := s.ctx.Err(); err != nil {
			s.err = err
		}
	}
	if s.err != nil {
		return false
	}
	for _, i := range s.order {
		if !s.eligible(cfg, i) {
			continue
		}
		k := s.slot[i]
		next, ok := s.m.Step(cfg.states[k], &s.c.Ops[i])
		if !ok {
			continue
		}
		nc := cfg
		nc.placed |= 1 << i
		nc.states[k] = next
		s.path = append(s.path, i)
		if len(s.path) > len(s.best) {
			s.best = append(s.best[:0], s.path...)
			s.bestCfg = nc
		}
		if s.dfs(nc) {
			return true
		}
		s.path = s.path[:len(s.path)-1]
		if s.err != nil {
			return false
		}
	}
	if s.err == nil {
		s.failed[cfg] = true
	}
	return false
}

// violation reports the longest legal prefix found and a completed
// operation that cannot follow it.
func (s *search[S]) violation() checker.Violation {
	cfg := s.bestCfg
	stuck := -1
	for _, i := range s.order {
		if s.c.Ops[i].Unknown || !s.eligible(cfg, i) {
			continue
		}
		if _, ok := s.m.Step(cfg.states[s.slot[i]], &s.c.Ops[i]); !ok {
			stuck = i
			break
		}
	}
	if stuck < 0 {
		// Every eligible operation was legal, so the prefix is a dead end
		// only further on; name the first completed operation left out.
		for _, i := range s.order {
			if s.required&^cfg.placed&(1<<i) != 0 {
				stuck = i
				break
			}
		}
	}
	v := checker.Violation{Op: checker.None, Model: s.m.Info().Name}
	for _, i := range s.best {
		v.Prefix = append(v.Prefix, s.c.Pos[i])
	}
	v.Ops = append(v.Ops, v.Prefix...)
	if stuck < 0 {
		return v
	}
	pos := s.c.Pos[stuck]
	v.Ops = append(v.Ops, pos)
	if s.m.Info().Keyed {
		v.Key = s.h.Ops[pos].Key.String()
	}
	// The model's words, or else the state it refused the op in.
	st := cfg.states[s.slot[stuck]]
	why := checker.Stuck{Op: pos}
	if e, ok := s.m.(model.Explainer[S]); ok {
		why.Said = e.Explain(st, &s.c.Ops[stuck], s.c.Table)
	}
	if why.Said == "" {
		why.Said, why.State = s.m.Describe(st, s.c.Table), true
	}
	v.Stuck = []checker.Stuck{why}
	return v
}
