package model

import (
	"sync"
	"sync/atomic"
)

// Interner assigns dense ids to values of a comparable type T, for models
// whose operations observe more than Op's three integers can hold (a whole
// set, every balance of a bank): Compile interns the observation and stores
// its id in the Op, and Step looks it up with At. Id 0 is reserved, as in
// Table. The zero Interner is ready to use.
//
// It is safe for concurrent use, and At takes no lock, so that Step stays
// cheap when a checker searches several partitions at once.
type Interner[T comparable] struct {
	mu   sync.Mutex
	ids  map[T]int64
	vals atomic.Pointer[[]T] // index = id; only ever appended to
}

// ID returns v's id, assigning the next one if v is new.
func (in *Interner[T]) ID(v T) int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if id, ok := in.ids[v]; ok {
		return id
	}
	if in.ids == nil {
		in.ids = make(map[T]int64)
	}
	var vals []T
	if p := in.vals.Load(); p != nil {
		vals = *p
	} else {
		var zero T
		vals = []T{zero}
	}
	// Appending writes only past the length readers hold, so readers of
	// an older slice never see the write.
	vals = append(vals, v)
	id := int64(len(vals) - 1)
	in.ids[v] = id
	in.vals.Store(&vals)
	return id
}

// At returns the value with the given id, or the zero T for id 0 and ids
// never assigned.
func (in *Interner[T]) At(id int64) T {
	var zero T
	p := in.vals.Load()
	if p == nil || id <= 0 || id >= int64(len(*p)) {
		return zero
	}
	return (*p)[id]
}
