package regdp

// cfgSet is a set of configurations of the compare-and-set sweep, each
// stride words, in an arena. Configurations with the same key (the words
// before keyLen) are compared by dominance over the rest: bitsets up to
// countsAt (a subset dominates) and then 16-bit counts of crashed
// operations used (one that used no more of every class dominates). The
// configurations of one key form a chain (next), and an open-addressing
// table holds the first of each chain only: a key with many incomparable
// configurations then costs its own chain, not a run of the table that
// every other key's probe would cross.
type cfgSet struct {
	stride, keyLen int
	countsAt       int
	arena          []uint64
	// next links each configuration to the next of its key (-1: last);
	// last is, for the first of a chain, its last.
	next, last []int32
	table      []int32
	n, keys    int
}

func newCfgSet(stride, keyLen, countsAt int) cfgSet {
	return cfgSet{stride: stride, keyLen: keyLen, countsAt: countsAt}
}

// dominates reports whether configuration a, of the same key as b, can do
// everything b can.
func (t *cfgSet) dominates(a, b []uint64) bool {
	for i := t.keyLen; i < t.countsAt; i++ {
		if a[i]&^b[i] != 0 {
			return false
		}
	}
	return countsLE(a[t.countsAt:], b[t.countsAt:])
}

// bytes is what the set holds: its arena, chains and table.
func (t *cfgSet) bytes() int64 {
	return int64(cap(t.arena))*8 + int64(cap(t.next)+cap(t.last)+cap(t.table))*4
}

func (t *cfgSet) cfg(i int) []uint64 { return t.arena[i*t.stride : (i+1)*t.stride] }

func (t *cfgSet) reset() {
	t.arena = t.arena[:0]
	t.next, t.last = t.next[:0], t.last[:0]
	t.n, t.keys = 0, 0
	t.resize(16)
}

func (t *cfgSet) resize(size int) {
	t.table = emptyTable(t.table, size)
}

func (t *cfgSet) hash(c []uint64) uint64 { return mixWords(seed, c[:t.keyLen]) }

// rehash rebuilds the table and the chains after configurations changed
// in place; equal ones are kept (they are harmless, and positions must not
// move).
func (t *cfgSet) rehash() {
	size := 16
	for size < 2*t.n+2 {
		size <<= 1
	}
	t.resize(size)
	t.keys = 0
	for j := 0; j < t.n; j++ {
		t.next[j] = -1
		if first, found := t.find(t.cfg(j)); found {
			t.link(first, j)
		} else {
			t.table[first] = int32(j)
			t.last[j] = int32(j)
			t.keys++
		}
	}
}

// find returns the first configuration of c's key and true, or the free
// slot of the table where that key's chain would start and false.
func (t *cfgSet) find(c []uint64) (int, bool) {
	mask := uint64(len(t.table) - 1)
	for h := t.hash(c) & mask; ; h = (h + 1) & mask {
		j := t.table[h]
		if j < 0 {
			return int(h), false
		}
		if equal(t.cfg(int(j))[:t.keyLen], c[:t.keyLen]) {
			return int(j), true
		}
	}
}

// link appends configuration j to the chain that starts at first.
func (t *cfgSet) link(first, j int) {
	t.next[t.last[first]] = int32(j)
	t.last[first] = int32(j)
}

// push appends a copy of c to the arena, alone in its chain.
func (t *cfgSet) push(c []uint64) int {
	t.arena = append(t.arena, c...)
	t.next = append(t.next, -1)
	t.last = append(t.last, int32(t.n))
	t.n++
	return t.n - 1
}

// add puts a copy of c into the set unless a configuration there dominates
// it; one that c dominates is overwritten. It returns the position c took
// and whether it was added (false: dominated).
func (t *cfgSet) add(c []uint64) (int, bool) {
	if 2*t.keys+2 > len(t.table) {
		t.rehash()
	}
	first, found := t.find(c)
	if !found {
		j := t.push(c)
		t.table[first] = int32(j)
		t.keys++
		return j, true
	}
	for k := first; k >= 0; k = int(t.next[k]) {
		old := t.cfg(k)
		if t.dominates(old, c) {
			return k, false
		}
		if t.dominates(c, old) {
			copy(old, c)
			return k, true
		}
	}
	j := t.push(c)
	t.link(first, j)
	return j, true
}

// countsLE reports whether every 16-bit count packed in a is at most the
// one in b.
func countsLE(a, b []uint64) bool {
	for i := range a {
		x, y := a[i], b[i]
		for k := 0; k < 4; k++ {
			if x&0xffff > y&0xffff {
				return false
			}
			x >>= 16
			y >>= 16
		}
	}
	return true
}
