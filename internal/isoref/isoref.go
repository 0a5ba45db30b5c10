// Package isoref decides the isolation levels of package
// checker/isolation by brute force, from their definitions, on histories
// of a few transactions: it tries every set of transactions of unknown
// outcome that may have committed and every commit order (arbitration)
// of the committed ones, builds the smallest visibility each level's
// axioms allow (Cerone, Bernardi and Gotsman, CONCUR 2015; Biswas and
// Enea, OOPSLA 2019, for read committed) and checks that every read
// returns the last visible write. It shares nothing with the checker but
// the levels' names.
package isoref

import (
	"fmt"

	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// The levels, by package isolation's names (only the names are shared:
// what each means is decided here from the definitions).
const (
	ReadCommitted     = isolation.ReadCommitted
	ReadAtomic        = isolation.ReadAtomic
	Causal            = isolation.Causal
	Prefix            = isolation.Prefix
	ParallelSnapshot  = isolation.ParallelSnapshot
	SnapshotIsolation = isolation.SnapshotIsolation
	Serializable      = isolation.Serializable
)

// Levels lists them.
var Levels = []string{ReadCommitted, ReadAtomic, Causal, Prefix, ParallelSnapshot, SnapshotIsolation, Serializable}

// MaxTxns bounds the transactions Decide takes.
const MaxTxns = 8

// ext is an external read: transaction reader read key's value val.
type ext struct {
	reader int
	key    history.Value
	val    history.Value
	pos    int // position in the transaction
}

// Decide reports whether h, a history of rw-register transactions,
// satisfies level, every key holding init first.
func Decide(h *history.History, level string, init history.Value) (bool, error) {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return false, err
	}
	if len(txns) > MaxTxns {
		return false, fmt.Errorf("%d transactions: the brute force takes at most %d", len(txns), MaxTxns)
	}
	var maybe []int
	for i := range txns {
		if txns[i].Status == history.Info {
			maybe = append(maybe, i)
		}
	}
	for mask := 0; mask < 1<<len(maybe); mask++ {
		in := make([]bool, len(txns))
		for i := range txns {
			in[i] = txns[i].Status == history.OK
		}
		for j, i := range maybe {
			in[i] = mask&(1<<j) != 0
		}
		if decideWith(txns, in, level, init) {
			return true, nil
		}
	}
	return false, nil
}

// world is one choice of committed transactions, numbered 1..n, with 0
// the initial transaction.
type world struct {
	n      int
	txns   []*txn.Txn // index 1..n
	final  []map[history.Value]history.Value
	exts   []ext
	srcs   []int // per ext, its writer
	so, wr [][]bool
	level  string
}

func decideWith(txns []txn.Txn, in []bool, level string, init history.Value) bool {
	w := &world{level: level, txns: []*txn.Txn{nil}, final: []map[history.Value]history.Value{nil}}
	for i := range txns {
		if in[i] {
			w.txns = append(w.txns, &txns[i])
		}
	}
	w.n = len(w.txns) - 1
	for t := 1; t <= w.n; t++ {
		f := map[history.Value]history.Value{}
		for _, m := range w.txns[t].Mops {
			if m.Kind == txn.Write {
				f[m.Key] = m.Value
			}
		}
		w.final = append(w.final, f)
	}
	if !w.external(init) {
		return false
	}
	w.so, w.wr = matrix(w.n+1), matrix(w.n+1)
	for a := 1; a <= w.n; a++ {
		w.so[0][a] = true
		for b := 1; b <= w.n; b++ {
			if a != b && w.txns[a].Process == w.txns[b].Process && w.txns[a].Op < w.txns[b].Op {
				w.so[a][b] = true
			}
		}
	}
	for i, e := range w.exts {
		w.wr[w.srcs[i]][e.reader] = true
	}
	perm := make([]int, 0, w.n)
	used := make([]bool, w.n+1)
	return w.permute(perm, used)
}

// external applies the internal axiom (a read after the transaction's
// own write of a key returns the last such write; the reads of a
// transaction of unknown outcome are unknown) and finds each external
// read's writer: the committed transaction whose last write of the key
// is the value, or the initial transaction. It reports false when some
// read has none.
func (w *world) external(init history.Value) bool {
	for t := 1; t <= w.n; t++ {
		tx := w.txns[t]
		if tx.Status != history.OK {
			continue
		}
		own := map[history.Value]history.Value{}
		for p, m := range tx.Mops {
			switch m.Kind {
			case txn.Write:
				own[m.Key] = m.Value
			case txn.Read:
				if v, ok := own[m.Key]; ok {
					if v != m.Value {
						return false
					}
					continue
				}
				w.exts = append(w.exts, ext{reader: t, key: m.Key, val: m.Value, pos: p})
			}
		}
	}
	for _, e := range w.exts {
		src := -1
		if e.val == init {
			src = 0
		}
		for t := 1; t <= w.n; t++ {
			if v, ok := w.final[t][e.key]; ok && v == e.val && t != e.reader {
				src = t
			}
		}
		if src < 0 {
			return false
		}
		w.srcs = append(w.srcs, src)
	}
	return true
}

func matrix(n int) [][]bool {
	m := make([][]bool, n)
	for i := range m {
		m[i] = make([]bool, n)
	}
	return m
}

// permute tries every order of the committed transactions.
func (w *world) permute(perm []int, used []bool) bool {
	if len(perm) == w.n {
		return w.holds(append([]int{0}, perm...))
	}
	for t := 1; t <= w.n; t++ {
		if !used[t] {
			used[t] = true
			ok := w.permute(append(perm, t), used)
			used[t] = false
			if ok {
				return true
			}
		}
	}
	return false
}

func (w *world) writes(t int, k history.Value) bool {
	if t == 0 {
		return true
	}
	_, ok := w.final[t][k]
	return ok
}

// holds checks the level under arbitration order ar (ar[0] is the
// initial transaction).
func (w *world) holds(order []int) bool {
	n := w.n + 1
	ar := matrix(n)
	for i := range order {
		for j := i + 1; j < len(order); j++ {
			ar[order[i]][order[j]] = true
		}
	}
	if w.level == ReadCommitted {
		return w.readCommitted(ar)
	}
	vis := w.visibility(ar)
	if vis == nil {
		return false
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if vis[a][b] && !ar[a][b] {
				return false
			}
		}
	}
	return w.ext(vis, ar)
}

// visibility is the smallest visibility the level's axioms allow under
// ar, or nil when none does.
func (w *world) visibility(ar [][]bool) [][]bool {
	n := w.n + 1
	vis := matrix(n)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			vis[a][b] = w.so[a][b] || w.wr[a][b]
		}
	}
	switch w.level {
	case Causal:
		closeTrans(vis)
	case ParallelSnapshot:
		w.conflicts(vis, ar)
		closeTrans(vis)
	case Prefix, SnapshotIsolation:
		for changed := true; changed; {
			changed = w.level == SnapshotIsolation && w.conflicts(vis, ar)
			if prefixClose(vis, ar) {
				changed = true
			}
		}
	case Serializable:
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if vis[a][b] && !ar[a][b] {
					return nil // session order and reads-from are visible
				}
			}
		}
		return ar
	}
	return vis
}

// prefixClose adds AR ; VIS to VIS; it reports whether it added any.
func prefixClose(vis, ar [][]bool) bool {
	n, changed := len(vis), false
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if !ar[a][b] {
				continue
			}
			for c := 0; c < n; c++ {
				if vis[b][c] && !vis[a][c] {
					vis[a][c] = true
					changed = true
				}
			}
		}
	}
	return changed
}

// ext is the external axiom: each read returns the value of the last
// visible writer of its key in arbitration order.
func (w *world) ext(vis, ar [][]bool) bool {
	for i, e := range w.exts {
		t1 := w.srcs[i]
		if !vis[t1][e.reader] {
			return false
		}
		for t2 := 0; t2 <= w.n; t2++ {
			if t2 != t1 && t2 != e.reader && vis[t2][e.reader] && w.writes(t2, e.key) && ar[t1][t2] {
				return false
			}
		}
	}
	return true
}

// conflicts adds to vis each pair of writers of a common key in
// arbitration order; it reports whether it added any.
func (w *world) conflicts(vis, ar [][]bool) bool {
	added := false
	for a := 1; a <= w.n; a++ {
		for b := 1; b <= w.n; b++ {
			if a == b || !ar[a][b] || vis[a][b] {
				continue
			}
			for k := range w.final[a] {
				if w.writes(b, k) {
					vis[a][b] = true
					added = true
					break
				}
			}
		}
	}
	return added
}

func closeTrans(m [][]bool) {
	n := len(m)
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			if !m[i][k] {
				continue
			}
			for j := 0; j < n; j++ {
				if m[k][j] {
					m[i][j] = true
				}
			}
		}
	}
}

// readCommitted is Biswas and Enea's read committed: the commit order
// extends session order and reads-from, and a read of x from t1 that
// follows, in its transaction, a read from t2, which wrote x, has t2
// committed before t1.
func (w *world) readCommitted(ar [][]bool) bool {
	for a := 0; a <= w.n; a++ {
		for b := 0; b <= w.n; b++ {
			if (w.so[a][b] || w.wr[a][b]) && !ar[a][b] {
				return false
			}
		}
	}
	for i, e := range w.exts {
		for j, f := range w.exts {
			if f.reader != e.reader || f.pos >= e.pos {
				continue
			}
			t1, t2 := w.srcs[i], w.srcs[j]
			if t2 != t1 && w.writes(t2, e.key) && ar[t1][t2] {
				return false
			}
		}
	}
	return true
}
