package linear

import "testing"

// The memo must stay exact when hashes collide: entries that share a hash
// but differ in their set or state are all kept apart.
func TestMemoCollisions(t *testing.T) {
	mm := newMemo[int64](2, 8)
	a, b := []uint64{1, 0}, []uint64{0, 1}
	steps := []struct {
		h    uint64
		s    int64
		bits []uint64
		want bool
	}{
		{7, 1, a, true},
		{7, 1, b, true},  // same hash and state, another set
		{7, 2, a, true},  // same hash and set, another state
		{7, 1, a, false}, // seen
		{7, 1, b, false},
		{7, 2, a, false},
		{8, 1, a, true}, // another hash
	}
	for i, st := range steps {
		if got := mm.add(st.h, st.s, st.bits); got != st.want {
			t.Fatalf("step %d: add = %v, want %v", i, got, st.want)
		}
	}
	if mm.size() != 4 {
		t.Fatalf("size %d", mm.size())
	}
}

// Growing the table and its chunks keeps every entry findable.
func TestMemoGrow(t *testing.T) {
	type state struct {
		name string
		n    int
	}
	mm := newMemo[state](1, 0)
	sh := newStateHasher[state]()
	const n = 5000
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			s := state{"s", i % 7}
			bits := []uint64{uint64(i)}
			// A weak hash on purpose, so that many entries collide.
			if got := mm.add(uint64(i%997)^sh.hash(s), s, bits); got != (round == 0) {
				t.Fatalf("round %d entry %d: add = %v", round, i, got)
			}
		}
	}
	if mm.size() != n {
		t.Fatalf("size %d, want %d", mm.size(), n)
	}
}

// States of integer and boolean types hash by value; other types intern.
func TestStateHasher(t *testing.T) {
	if h := newStateHasher[bool](); h.size != 1 || h.hash(true) == h.hash(false) {
		t.Errorf("bool hasher: size %d", h.size)
	}
	if h := newStateHasher[int32](); h.size != 4 || h.hash(3) != h.hash(3) || h.hash(3) == h.hash(4) {
		t.Errorf("int32 hasher: size %d", h.size)
	}
	h := newStateHasher[string]()
	if h.size != 0 || h.hash("a") != h.hash("a") || h.hash("a") == h.hash("b") {
		t.Errorf("string hasher: size %d", h.size)
	}
}
