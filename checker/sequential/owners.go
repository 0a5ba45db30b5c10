package sequential

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// MethodOwners, as put in checker.Result.Method, says that the history
// was decided owner by owner.
const MethodOwners = "owners"

// A lock that records its holder (model.Owned) is decided owner by owner.
// A legal order is a sequence of critical sections, each an acquire and
// the release right after it by the same owner, with perhaps one acquire
// left at the end. So:
//
//   - Restricted to one owner's operations, a legal order is still a
//     sequence of that owner's critical sections: legal on its own (a
//     fencing token that exceeds every earlier one exceeds the owner's
//     earlier ones). An owner whose operations have no order refutes the
//     whole history.
//   - Conversely, orders of each owner's operations, each ending with the
//     lock free except perhaps one, concatenate (that one last) into an
//     order of the whole that keeps every process's order, since a
//     process's operations all have one owner. It is legal when the
//     fencing tokens still increase across owners, which is checked by
//     stepping the model through it.
//
// Each owner's operations are few processes (a client and the processes
// it goes on as after crashes), so each is decided by counting, the greedy
// order or a small search, where the search of all owners together would
// explore the interleavings of all of them. When an owner's search runs out
// of its budget, or the owners' orders do not concatenate, the history
// goes on to the other methods.

// byOwner decides p owner by owner; it reports false when it cannot.
func byOwner[S comparable](ctx context.Context, p *problem[S]) (checker.Result, bool) {
	groups, ok := ownerGroups(p)
	if !ok || len(groups) < 2 {
		return checker.Result{}, false
	}
	var subs []checker.Result
	var nodes int64
	var held []int // per owner that ends holding the lock in every order: its last acquire
	decided := true
	for _, procs := range groups {
		if ctx.Err() != nil {
			return checker.Result{}, false
		}
		r, last := decideOwner(ctx, p.restrictProcs(procs))
		nodes += r.Stats.States
		switch {
		case r.Valid == checker.False:
			if v := &r.Violations[0]; v.Count != nil {
				v.Count.OneClient = true
			}
			r.Method = MethodOwners
			r.Stats.States = nodes
			r.Reason = fmt.Sprintf("the operations of %s alone have no sequential order, so neither has the whole history", ownerName(p, procs))
			return r, true
		case r.Valid == checker.Unknown:
			decided = false
		case last >= 0:
			held = append(held, last)
		}
		subs = append(subs, r)
	}
	if len(held) > 1 {
		v := checker.Violation{Pattern: "owners-held", Op: checker.None, Ops: held, Model: p.m.Info().Name}
		return checker.Result{Valid: checker.False, Method: MethodOwners, Violations: []checker.Violation{v}, Stats: checker.Stats{States: nodes}}, true
	}
	if !decided {
		return checker.Result{}, false
	}
	return concatenate(p, subs, nodes)
}

// decideOwner decides one owner's operations (decideAlone). When its
// order leaves the lock held, it searches for one that leaves it free;
// if there is none, it returns the order that leaves it held and the
// position of the last acquire in it, else -1.
func decideOwner[S comparable](ctx context.Context, sub *problem[S]) (checker.Result, int) {
	r := decideAlone(ctx, sub)
	last := lastHolding(sub, r)
	if r.Valid != checker.True || last < 0 {
		return r, -1
	}
	sub.endFree = true
	free := runSearch(ctx, sub, perKeyNodes, defaultMemoBytes)
	free.Stats.States += r.Stats.States
	switch free.Valid {
	case checker.True:
		return free, -1
	case checker.False:
		r.Stats.States = free.Stats.States
		return r, last
	}
	return free, -1
}

// lastHolding returns, when r's witness leaves the lock held, the
// position of its last acquire; else -1.
func lastHolding[S comparable](sub *problem[S], r checker.Result) int {
	cm := sub.m.(model.Counting)
	compiled := sub.compiledAt()
	count, last := 0, -1
	for _, pos := range r.Witness {
		d := cm.Delta(&sub.c.Ops[compiled[pos]])
		count += d
		if d > 0 {
			last = pos
		}
	}
	if count == 0 {
		return -1
	}
	return last
}

// ownerGroups groups p's processes by the owner of their operations. It
// reports false when the model has no owners, counts nothing, is keyed, or
// a process's operations have more than one owner.
func ownerGroups[S comparable](p *problem[S]) ([][]int, bool) {
	om, ok := p.m.(model.Owned)
	if _, counts := p.m.(model.Counting); !ok || !counts || p.keyed {
		return nil, false
	}
	index := map[int64]int{}
	var groups [][]int
	for pi, ops := range p.procs {
		owner := om.Owner(&p.c.Ops[ops[0]])
		for _, op := range ops[1:] {
			if om.Owner(&p.c.Ops[op]) != owner {
				return nil, false
			}
		}
		g, seen := index[owner]
		if !seen {
			g = len(groups)
			index[owner] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], pi)
	}
	return groups, true
}

// ownerName names the owner of the processes procs by the client of their
// first operation.
func ownerName[S comparable](p *problem[S], procs []int) string {
	return fmt.Sprintf("client %q", p.h.Ops[p.c.Pos[p.procs[procs[0]][0]]].Client)
}

// decideAlone decides one owner's operations: counting, the greedy order,
// then a search bounded as each key's is.
func decideAlone[S comparable](ctx context.Context, sub *problem[S]) checker.Result {
	if v := refuteByCount(sub); v != nil {
		return checker.Result{Valid: checker.False, Method: MethodCount, Violations: []checker.Violation{*v}}
	}
	if r, ok := greedyOrder(sub); ok {
		return r
	}
	return runSearch(ctx, sub, perKeyNodes, defaultMemoBytes)
}

// concatenate joins the owners' witnesses, the one that leaves the lock
// held (at most one) last, and checks the whole order with the model.
func concatenate[S comparable](p *problem[S], subs []checker.Result, nodes int64) (checker.Result, bool) {
	compiled := p.compiledAt()
	cm := p.m.(model.Counting)
	held := -1
	for i, r := range subs {
		count := 0
		for _, pos := range r.Witness {
			count += cm.Delta(&p.c.Ops[compiled[pos]])
		}
		if count != 0 && held >= 0 {
			return checker.Result{}, false
		}
		if count != 0 {
			held = i
		}
	}
	if held >= 0 {
		subs = append(append(subs[:held:held], subs[held+1:]...), subs[held])
	}
	res := checker.Result{Valid: checker.True, Method: MethodOwners, Stats: checker.Stats{States: nodes},
		Reason: "each client's operations have an order, and those orders one after another are legal"}
	res.Dropped = append(res.Dropped, p.c.Dropped...)
	state := p.init
	for _, r := range subs {
		for _, pos := range r.Witness {
			next, legal := p.m.Step(state, &p.c.Ops[compiled[pos]])
			if !legal {
				return checker.Result{}, false
			}
			state = next
		}
		res.Witness = append(res.Witness, r.Witness...)
		res.Dropped = append(res.Dropped, r.Dropped...)
	}
	return res, true
}

// compiledAt maps each operation's position in the history to its index
// among p's compiled operations.
func (p *problem[S]) compiledAt() map[int]int32 {
	at := make(map[int]int32, len(p.c.Pos))
	for i, pos := range p.c.Pos {
		at[pos] = int32(i)
	}
	return at
}
