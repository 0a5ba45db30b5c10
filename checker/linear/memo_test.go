package linear

import "testing"

// The memo must stay exact when hashes collide: entries that share a hash
// but differ in their set or state are all kept apart.
func TestMemoCollisions(t *testing.T) {
	mm := newMemo[int64](2, 8, 100)
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
	mm := newMemo[state](1, 0, 40)
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

// States of integer and boolean types hash by value: a hasher that has
// seen other states first gives the same hash, and distinct states get
// distinct hashes. Other types intern: a state keeps the hash it was first
// given, whatever was hashed in between.
func TestStateHasher(t *testing.T) {
	b, fresh := newStateHasher[bool](), newStateHasher[bool]()
	if b.size != 1 || b.hash(true) == b.hash(false) {
		t.Errorf("bool hasher: size %d, true and false hash alike", b.size)
	}
	fresh.hash(false)
	if fresh.hash(true) != b.hash(true) {
		t.Errorf("bool hasher: hash of true depends on the states hashed before")
	}

	i32, other := newStateHasher[int32](), newStateHasher[int32]()
	if i32.size != 4 {
		t.Errorf("int32 hasher: size %d, want 4", i32.size)
	}
	seen := map[uint64]int32{}
	for _, v := range []int32{0, 1, 2, 3, 4, -1, -2, 1 << 30, -1 << 31, 1<<31 - 1} {
		h := i32.hash(v)
		if w, dup := seen[h]; dup {
			t.Errorf("int32 hasher: %d and %d hash alike", w, v)
		}
		seen[h] = v
	}
	other.hash(7)
	other.hash(-7)
	if other.hash(3) != i32.hash(3) || other.hash(-1) != i32.hash(-1) {
		t.Errorf("int32 hasher: hashes depend on the states hashed before")
	}

	h := newStateHasher[string]()
	if h.size != 0 {
		t.Errorf("string hasher: size %d, want 0 (interning)", h.size)
	}
	a := h.hash("a")
	bh := h.hash("b")
	if a == bh {
		t.Errorf("string hasher: \"a\" and \"b\" hash alike")
	}
	built := string([]byte{'a'}) // equal to "a", not the same constant
	if h.hash(built) != a || h.hash("b") != bh {
		t.Errorf("string hasher: a state's hash changed after other states were hashed")
	}
}

// A table whose growth is refused stops remembering and never loops: every
// configuration is then reported new (the search re-explores until it sees
// refused and stops), and the table takes no more memory.
func TestMemoRefusedGrowth(t *testing.T) {
	mm := newMemo[int64](1, 8, 40)
	allowed := int64(0)
	mm.grows = func(bytes int64) bool {
		if allowed+bytes > 64<<10 {
			return false
		}
		allowed += bytes
		return true
	}
	n := 0
	for ; !mm.refused; n++ {
		if !mm.add(uint64(n)*0x9e3779b97f4a7c15, int64(n), []uint64{uint64(n)}) {
			t.Fatalf("entry %d reported seen", n)
		}
		if n > 1<<20 {
			t.Fatal("the table never refused")
		}
	}
	kept := mm.size()
	if !mm.add(1, 1<<40, []uint64{7}) || mm.size() != kept {
		t.Errorf("a refused table grew from %d to %d entries", kept, mm.size())
	}
	if got := mm.bytes(); got > 80<<10 {
		t.Errorf("a table refused past 64 KiB holds %d bytes", got)
	}
}
