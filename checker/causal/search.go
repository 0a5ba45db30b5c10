package causal

import (
	"context"
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/checker"
)

// DefaultSearchWork is the work Search may do when SearchLimits.Work is
// 0: the operations all its checks visit together.
const DefaultSearchWork = 300_000

// SearchLimits bound Search.
type SearchLimits struct {
	// Work bounds the operations the checks of the search visit in all
	// (each check of a choice counts the operations it holds); 0 means
	// DefaultSearchWork.
	Work int64
}

// Outcome is what a Decider found on one differentiated history.
type Outcome struct {
	Holds bool
	// Count is how many violations were found, and Ops the positions of
	// the operations the first few involve (their operations and the
	// ends of their steps): where a repair of the choice may start.
	Count int
	Ops   []int
}

// Decider decides a criterion on a differentiated history.
type Decider func(p *Prepared) (Outcome, error)

// ViolationOps returns the positions of the operations vs involve: their
// own and the ends of their steps, for Outcome.Ops.
func ViolationOps(vs []checker.Violation) []int {
	var out []int
	for _, v := range vs {
		out = append(out, v.Ops...)
		for _, st := range v.Steps {
			out = append(out, st.From, st.To, st.Via)
		}
	}
	return out
}

// Searched is what Search found.
type Searched struct {
	Valid checker.Verdict
	// P is the choice that holds (Valid True) or the one whose violations
	// show the failure (Valid False): the forced choices alone when they
	// fail already (Forced), else the first complete choice tried. It is
	// nil when Valid is Unknown.
	P      *Prepared
	Forced bool
	// Open counts the reads with a choice; Tried the choices checked.
	Open, Tried int
	// Reason says why Valid is Unknown.
	Reason string
}

// errBudget stops a search that has done its work.
var errBudget = errors.New("search budget spent")

// Search decides a criterion on an ambiguous history by choosing which
// write each read of a repeated value read (or the initial state), and
// for each choice deciding the differentiated history with decide. The
// criterion holds iff some choice does. Writes of unknown outcome that no
// read chose are left out of that choice, which is exact.
//
// Every criterion here only gets weaker when a read is left out, so a
// partial choice (the reads not chosen yet left out) that fails prunes
// every choice extending it. The search first checks the forced choices
// (reads with one candidate) alone, then the likeliest complete choice
// and repairs of it guided by its violations, then drops the candidates
// that fail on top of the forced choices,
// taking a read's last remaining one as forced, and then searches depth
// first, the reads in history order, checking each partial choice.
// Deciding causal consistency without unique values is NP-complete
// (Bouajjani et al., POPL 2017): past its limits the verdict is Unknown.
func Search(ctx context.Context, p *Prepared, decide Decider, lim SearchLimits) (Searched, error) {
	if p.amb == nil {
		o, err := decide(p)
		return Searched{Valid: verdictOf(o.Holds), P: p, Tried: 1}, err
	}
	s := &searcher{ctx: ctx, a: p.amb, decide: decide, budget: lim.Work}
	if s.budget <= 0 {
		s.budget = DefaultSearchWork
	}
	out, err := s.run(p)
	out.Open, out.Tried = len(p.amb.open), s.tried
	if out.P != nil {
		out.P.amb = p.amb
	}
	if errors.Is(err, errBudget) {
		return Searched{Open: out.Open, Tried: out.Tried, Reason: fmt.Sprintf(
			"the search over which write each read of a repeated value read (%s) ran out of its budget of %d operations checked, after %d choices; %d reads have a choice",
			p.amb.why, s.budget, s.tried, len(p.amb.open))}, nil
	}
	return out, err
}

func verdictOf(ok bool) checker.Verdict {
	if ok {
		return checker.True
	}
	return checker.False
}

type searcher struct {
	ctx    context.Context
	a      *ambiguity
	decide Decider
	budget int64
	used   int64
	tried  int
	last   Outcome // of the last choice tried
}

// try decides one choice, within the budget.
func (s *searcher) try(q *Prepared) (bool, error) {
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	s.used += int64(len(q.Ops)) + 1
	if s.used > s.budget {
		return false, errBudget
	}
	s.tried++
	o, err := s.decide(q)
	s.last = o
	return o.Holds, err
}

func (s *searcher) run(root *Prepared) (Searched, error) {
	a := s.a
	if ok, err := s.try(root); err != nil || !ok {
		return Searched{Valid: checker.False, P: root, Forced: true}, err
	}
	if len(a.open) == 0 {
		return Searched{Valid: checker.True, P: root}, nil
	}
	src := append([]int(nil), a.fixed...)
	for _, r := range a.open {
		src[r] = a.cands[r][0]
	}
	first := a.b.build(src)
	if ok, err := s.try(first); err != nil || ok {
		return Searched{Valid: checker.True, P: first}, err
	}
	if q, err := s.repair(src, s.last); err != nil || q != nil {
		return Searched{Valid: checker.True, P: q}, err
	}
	fixed, open, cands, err := s.narrow()
	if err != nil {
		return Searched{}, err
	}
	if open == nil && cands == nil {
		return Searched{Valid: checker.False, P: first}, nil
	}
	if len(open) == 0 {
		q := a.b.build(fixed)
		if ok, err := s.try(q); err != nil || !ok {
			return Searched{Valid: checker.False, P: first}, err
		}
		return Searched{Valid: checker.True, P: q}, nil
	}
	found, _, err := s.dfs(fixed, open, cands, 0)
	if err != nil || found == nil {
		return Searched{Valid: checker.False, P: first}, err
	}
	return Searched{Valid: checker.True, P: found}, nil
}

// maxRepairs bounds the rounds of repair.
const maxRepairs = 64

// repair changes the complete choice src, which failed with outcome o,
// one read at a time: of the reads with a choice that o's violations
// involve, it takes the first change of candidate that leaves fewer
// violations, while there is one. It returns a choice that holds,
// or nil when the violations stop falling; it only guides the search to
// a witness, and proves nothing when it finds none.
func (s *searcher) repair(src []int, o Outcome) (*Prepared, error) {
	src = append([]int(nil), src...)
	for round := 0; round < maxRepairs; round++ {
		best, bestR, bestC := o, -1, 0
		for _, r := range s.culprits(o.Ops) {
			was := src[r]
			for _, c := range s.a.cands[r] {
				if c == was {
					continue
				}
				src[r] = c
				q := s.a.b.build(src)
				ok, err := s.try(q)
				if err != nil || ok {
					return q, err
				}
				if s.last.Count < best.Count {
					best, bestR, bestC = s.last, r, c
					break
				}
			}
			src[r] = was
			if bestR >= 0 {
				break
			}
		}
		if bestR < 0 {
			return nil, nil
		}
		src[bestR], o = bestC, best
	}
	return nil, nil
}

// culprits returns the reads with a choice among the operations at the
// positions ops, each once.
func (s *searcher) culprits(ops []int) []int {
	raws := s.a.b.raws
	seen := map[int]bool{}
	var out []int
	for _, pos := range ops {
		if pos < 0 {
			continue
		}
		r := s.a.rawOf(pos)
		if r < len(raws) && raws[r].pos == pos && !raws[r].write && len(s.a.cands[r]) > 1 && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// narrow drops, until nothing changes, each open read's candidates that
// fail on top of the forced choices, and makes a read with one candidate
// left forced. It returns the forced choices, the reads still open (most
// order) and the candidates left; cands is nil when a read
// has none left, so that no choice holds.
func (s *searcher) narrow() (fixed []int, open []int, cands [][]int, err error) {
	a := s.a
	fixed = append([]int(nil), a.fixed...)
	cands = make([][]int, len(a.cands))
	copy(cands, a.cands)
	open = append([]int(nil), a.open...)
	for changed := true; changed; {
		changed = false
		var still []int
		for _, r := range open {
			var keep []int
			for _, c := range cands[r] {
				fixed[r] = c
				ok, err := s.try(a.b.build(fixed))
				if err != nil {
					return nil, nil, nil, err
				}
				if ok {
					keep = append(keep, c)
				}
			}
			fixed[r] = srcOpen
			cands[r] = keep
			switch len(keep) {
			case 0:
				return nil, nil, nil, nil
			case 1:
				fixed[r], changed = keep[0], true
			default:
				still = append(still, r)
			}
		}
		open = still
	}
	if open == nil {
		open = []int{}
	}
	return fixed, open, cands, nil
}

// dfs extends the choice src of the reads open[:depth] to the others,
// checking each partial choice, and returns the first complete one that
// holds, or nil and the depth to go on from: when every candidate of a
// read fails at once, the failure comes from the reads before it, and
// only from the first few of them (see conflict), so the search jumps
// back to the last of those, skipping the choices in between, which
// would fail the same way.
func (s *searcher) dfs(src, open []int, cands [][]int, depth int) (*Prepared, int, error) {
	r := open[depth]
	defer func() { src[r] = srcOpen }()
	direct := true // every candidate failed its own check
	for _, c := range cands[r] {
		src[r] = c
		q := s.a.b.build(src)
		ok, err := s.try(q)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			continue
		}
		if depth+1 == len(open) {
			return q, 0, nil
		}
		found, jump, err := s.dfs(src, open, cands, depth+1)
		if err != nil || found != nil || jump < depth {
			return found, jump, err
		}
		direct = false
	}
	if !direct {
		return nil, depth - 1, nil
	}
	j, err := s.conflict(src, open, cands, depth)
	return nil, j - 1, err
}

// conflict returns the fewest reads of open[:depth], taken from the
// start, whose choice in src already makes every candidate of
// open[depth] fail (it does with all of them). Leaving reads out only
// weakens a criterion, so the fewer the reads, the fewer the failures,
// and a binary search finds it.
func (s *searcher) conflict(src, open []int, cands [][]int, depth int) (int, error) {
	r := open[depth]
	saved := make([]int, depth)
	for k := 0; k < depth; k++ {
		saved[k] = src[open[k]]
	}
	defer func() {
		for k := 0; k < depth; k++ {
			src[open[k]] = saved[k]
		}
		src[r] = srcOpen
	}()
	fails := func(n int) (bool, error) {
		for k := 0; k < depth; k++ {
			src[open[k]] = srcOpen
			if k < n {
				src[open[k]] = saved[k]
			}
		}
		for _, c := range cands[r] {
			src[r] = c
			ok, err := s.try(s.a.b.build(src))
			if err != nil || ok {
				return false, err
			}
		}
		return true, nil
	}
	lo, hi := 0, depth
	for lo < hi {
		mid := (lo + hi) / 2
		f, err := fails(mid)
		if err != nil {
			return 0, err
		}
		if f {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}

// SearchNote says, for a result's reason, how a search of reads-from
// reached its verdict.
func SearchNote(sr Searched) string {
	what := fmt.Sprintf("; %d reads of repeated values had a choice of write, %d choices checked", sr.Open, sr.Tried)
	switch {
	case sr.Valid == checker.True:
		return what + "; the reads-from shown is a choice that holds"
	case sr.Forced:
		return what + "; the reads with one possible write already fail, whatever the others read"
	case sr.Valid == checker.False:
		return what + "; no choice holds, the violations shown are those of the first choice tried"
	}
	return what
}
