package regdp

// cfgSet is a set of configurations of the compare-and-set sweep, each
// stride words, in an arena with an open-addressing table. Configurations
// with the same key (the words before keyLen) are compared by dominance
// over the rest: bitsets up to countsAt (a subset dominates) and then 16-bit
// counts of crashed operations used (one that used no more of every class
// dominates).
type cfgSet struct {
	stride, keyLen int
	countsAt       int
	arena          []uint64
	table          []int32
	n              int
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

func (t *cfgSet) cfg(i int) []uint64 { return t.arena[i*t.stride : (i+1)*t.stride] }

func (t *cfgSet) reset() {
	t.arena = t.arena[:0]
	t.n = 0
	t.resize(16)
}

func (t *cfgSet) resize(size int) {
	t.table = emptyTable(t.table, size)
}

func (t *cfgSet) hash(c []uint64) uint64 { return mixWords(seed, c[:t.keyLen]) }

// rehash rebuilds the table after configurations changed in place; equal
// ones are kept (they are harmless, and positions must not move).
func (t *cfgSet) rehash() {
	size := 16
	for size < 2*t.n+2 {
		size <<= 1
	}
	t.resize(size)
	mask := uint64(size - 1)
	for j := 0; j < t.n; j++ {
		h := t.hash(t.cfg(j)) & mask
		for t.table[h] >= 0 {
			h = (h + 1) & mask
		}
		t.table[h] = int32(j)
	}
}

// add puts a copy of c into the set unless a configuration there dominates
// it; one that c dominates is overwritten. It returns the position c took
// and whether it was added (false: dominated).
func (t *cfgSet) add(c []uint64) (int, bool) {
	if 2*t.n+2 > len(t.table) {
		t.rehash()
	}
	mask := uint64(len(t.table) - 1)
	for h := t.hash(c) & mask; ; h = (h + 1) & mask {
		j := t.table[h]
		if j < 0 {
			t.table[h] = int32(t.n)
			t.arena = append(t.arena, c...)
			t.n++
			return t.n - 1, true
		}
		old := t.cfg(int(j))
		if !equal(old[:t.keyLen], c[:t.keyLen]) {
			continue
		}
		if t.dominates(old, c) {
			return int(j), false
		}
		if t.dominates(c, old) {
			copy(old, c)
			return int(j), true
		}
	}
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
