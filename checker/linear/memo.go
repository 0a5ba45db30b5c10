package linear

import (
	"math/bits"
	"reflect"
	"unsafe"
)

// memo remembers the configurations (set of linearized operations, model
// state) already explored, so that the search never explores one twice. It
// is an open-addressing hash table specialised to the search: the hash of a
// configuration is maintained incrementally by the caller (Zobrist hashing
// of the set, mixed with a hash of the state), and every entry keeps its
// full set and state, so a hash collision costs a comparison, never a wrong
// answer.
//
// Entries live in fixed-size chunks, never moved once written: each is its
// hash, then (for integer and boolean states) the state's bits, then the
// set, so that checking a candidate touches one cache line. Other state
// types are kept in a parallel slice. Nothing holds pointers unless S does,
// so the collector does not scan the table.
type memo[S comparable] struct {
	// slots hold, for each table position, the entry index + 1 in the low
	// 32 bits (0: empty) and the top 32 bits of the entry's hash, so that
	// most mismatches are rejected without touching the entry.
	slots  []uint64
	mask   uint64
	words  int     // words in a set
	stride int     // words per entry
	inline bool    // the state's bits are stored in the entry
	size8  uintptr // state size in bytes when inline
	chunks [][]uint64
	states []S // when not inline
	n      int
	words8 int64 // words allocated in chunks
	// grows, when set, is asked before the table takes more memory (a
	// chunk, larger slots) and may refuse; then refused is set and the
	// table stops remembering, which costs re-exploration, never a wrong
	// answer, until the search sees refused and stops.
	grows   func(bytes int64) bool
	refused bool
}

// firstChunk is the number of entries of the first chunk; each next chunk
// is twice as large, so small searches allocate little and large ones never
// copy.
const firstChunk = 1 << 5

func newMemo[S comparable](words int, stateSize uintptr, ops int) *memo[S] {
	// The table starts at 1,024 slots, or, for a search of fewer than 512
	// operations, twice as many as it has operations (at least 64): a
	// search that finds its way explores about one configuration per
	// operation, a core is shrunk in hundreds of searches of a few
	// operations each, and a keyed history has a search per key.
	initial := uint64(1 << 10)
	if ops < 512 {
		initial = max(1<<6, uint64(1)<<bits.Len(uint(max(2*ops-1, 1))))
	}
	mm := &memo[S]{slots: make([]uint64, initial), mask: initial - 1, words: words,
		inline: stateSize > 0, size8: stateSize}
	mm.stride = 1 + words
	if mm.inline {
		mm.stride++
	}
	return mm
}

// size returns the number of configurations remembered.
func (mm *memo[S]) size() int64 { return int64(mm.n) }

// bytes estimates the memory the table holds: its slots and entries, and
// for states that are not inline their copies and their interned hashes.
func (mm *memo[S]) bytes() int64 {
	var s S
	b := 8 * (int64(len(mm.slots)) + mm.words8)
	if !mm.inline {
		// The states slice, and the hasher's map entry for each distinct
		// state (at most one per entry, with the map's overhead).
		b += int64(cap(mm.states))*int64(unsafe.Sizeof(s)) + int64(mm.n)*(2*int64(unsafe.Sizeof(s))+16)
	}
	return b
}

// entry returns entry e: chunk k holds entries firstChunk·(2^k − 1) up to
// firstChunk·(2^(k+1) − 1).
func (mm *memo[S]) entry(e int) []uint64 {
	k := bits.Len(uint(e/firstChunk+1)) - 1
	o := (e - firstChunk*(1<<k-1)) * mm.stride
	return mm.chunks[k][o : o+mm.stride : o+mm.stride]
}

// stateBits returns s's bits as a word (for inline states).
func stateBits[S comparable](s *S, size uintptr) uint64 {
	switch size {
	case 8:
		return *(*uint64)(unsafe.Pointer(s))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(s)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(s)))
	}
	return uint64(*(*uint8)(unsafe.Pointer(s)))
}

// add records the configuration (bits, s) whose hash is h and reports
// whether it was new.
func (mm *memo[S]) add(h uint64, s S, bits []uint64) bool {
	if mm.refused {
		return true
	}
	fp := h &^ 0xffffffff
	var sb uint64
	if mm.inline {
		sb = stateBits(&s, mm.size8)
	}
	for i := h & mm.mask; ; i = (i + 1) & mm.mask {
		slot := mm.slots[i]
		if slot == 0 {
			e := mm.n
			if e == firstChunk*(1<<len(mm.chunks)-1) {
				words := firstChunk << len(mm.chunks) * mm.stride
				if !mm.mayGrow(8 * int64(words)) {
					return true
				}
				c := make([]uint64, words)
				mm.chunks = append(mm.chunks, c)
				mm.words8 += int64(len(c))
			}
			mm.slots[i] = fp | uint64(e+1)
			ent := mm.entry(e)
			ent[0] = h
			if mm.inline {
				ent[1] = sb
				copy(ent[2:], bits)
			} else {
				copy(ent[1:], bits)
				mm.states = append(mm.states, s)
			}
			mm.n++
			if uint64(mm.n)*2 > mm.mask && mm.mayGrow(16*int64(len(mm.slots))) {
				mm.grow()
			}
			return true
		}
		if slot&^0xffffffff != fp {
			continue
		}
		e := int(slot&0xffffffff) - 1
		ent := mm.entry(e)
		if ent[0] != h {
			continue
		}
		if mm.inline {
			if ent[1] == sb && equalWords(ent[2:], bits) {
				return false
			}
		} else if mm.states[e] == s && equalWords(ent[1:], bits) {
			return false
		}
	}
}

// mayGrow asks grows for bytes more, and on a refusal marks the table
// refused. A table whose slots may not grow stays below its load factor,
// since refused stops every insertion.
func (mm *memo[S]) mayGrow(bytes int64) bool {
	if mm.grows == nil || mm.grows(bytes) {
		return true
	}
	mm.refused = true
	return false
}

func (mm *memo[S]) grow() {
	n := 2 * len(mm.slots)
	mm.slots = make([]uint64, n)
	mm.mask = uint64(n - 1)
	for e := 0; e < mm.n; e++ {
		h := mm.entry(e)[0]
		i := h & mm.mask
		for mm.slots[i] != 0 {
			i = (i + 1) & mm.mask
		}
		mm.slots[i] = h&^0xffffffff | uint64(e+1)
	}
}

func equalWords(a, b []uint64) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// stateHasher hashes model states. States of an integer or boolean type
// are hashed from their bits directly; other state types are interned, each
// distinct state getting a random 64-bit value.
type stateHasher[S comparable] struct {
	size   uintptr // 1, 2, 4 or 8 when hashing bits; 0 when interning
	intern map[S]uint64
	seed   uint64
}

func newStateHasher[S comparable]() *stateHasher[S] {
	sh := &stateHasher[S]{seed: 0x2545f4914f6cdd1d}
	switch reflect.TypeFor[S]().Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		var s S
		sh.size = unsafe.Sizeof(s)
	default:
		sh.intern = make(map[S]uint64)
	}
	return sh
}

func (sh *stateHasher[S]) hash(s S) uint64 {
	if sh.size == 0 {
		if v, ok := sh.intern[s]; ok {
			return v
		}
		v := splitmix(&sh.seed)
		sh.intern[s] = v
		return v
	}
	return mix(stateBits(&s, sh.size))
}

// mix is a 64-bit finaliser (from MurmurHash3): nearby integers get
// unrelated hashes.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
