package model

import (
	"errors"
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// # Versions
//
// A history may give each operation an explicit version (history.Op.Version,
// an integer such as an etcd revision). Every criterion reads the same facts
// from versions, under one rule (UsesVersions says when it applies):
//
//   - the writes of a key take effect in the order of their versions: a
//     write with version v is legal only while the key holds a version
//     below v (the initial value counts as older than every write);
//   - a read with version v read the write of its key with version v, and
//     must have returned that write's value; a read whose version no write
//     of its key carries read the initial value, and must have returned it;
//     otherwise it read a value nobody wrote and is legal nowhere.
//
// The register, cas-register and kv models compile versioned reads and
// writes to operations whose states carry the version order (see
// finishVersions); the causal criteria and the session guarantees map reads
// to writes and order writes by the same versions (checker/causal.Prepare).
// Versions are understood on reads and writes only: a cas or an append in a
// history that uses versions is an input error.

// Operation codes of versioned reads and writes, shared by the register
// models and kv (Op.Kind). Compile produces the raw codes; Finish turns them
// into the final ones once every operation of a key is known.
const (
	vReadRaw uint8 = 16 + iota
	vWriteRaw
	vRead
	vWrite
)

// noState is the A of a versioned read that no state satisfies: it read a
// version whose write wrote another value, or a value nobody wrote.
const noState int64 = -1

// A versioned state packs the rank of the write that set it (its place in
// its key's version order, from 1; 0 for the initial value) above the
// value's id (a pair [value version] for written states).
const (
	rankShift = 32
	idMask    = 1<<rankShift - 1
)

// UsesVersions reports whether the criteria read versions from h: every
// operation that did not fail, other than reads of unknown outcome (which
// returned nothing), carries an integer version, and no two writes of one
// key carry the same one. Otherwise versions are ignored by every
// criterion, and reads are matched to writes by their values.
//
// checker/causal.Prepare applies the same rule for the causal criteria and
// the session guarantees; checker/suite sets Options.Versions from it.
func UsesVersions(h *history.History) bool {
	type keyVer struct {
		key history.Value
		ver int64
	}
	seen := make(map[keyVer]bool)
	n := 0
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail || (o.Status == history.Info && isReadName(o.F)) {
			continue
		}
		v, ok := o.Version.Int()
		if !ok {
			return false
		}
		n++
		if isWriteName(o.F) {
			k := keyVer{o.Key, v}
			if seen[k] {
				return false
			}
			seen[k] = true
		}
	}
	return n > 0
}

func isReadName(f string) bool  { return f == "read" || f == "r" || f == "get" }
func isWriteName(f string) bool { return f == "write" || f == "w" || f == "put" }

// Finisher is implemented by models whose compiled operations depend on
// facts that only the whole set of operations tells (which write carries
// which version). checker.Compile and checker.VerifyWitness call Finish once,
// after compiling every operation that did not fail of a history or of one
// partition, with the same table, and before pruning. Finish may rewrite the
// operations' arguments; an error names operations by their index in ops
// with an *OpsError.
type Finisher interface {
	Finish(ops []Op, t *Table) error
}

// OpsError is a Finisher's complaint about some operations, named by their
// indices in the slice given to Finish.
type OpsError struct {
	Ops []int
	Msg string
}

func (e *OpsError) Error() string { return e.Msg }

// compileVersioned compiles a read or a write that carries a version: A is
// the value's id, B the key's id, C the version. Finish completes it.
func compileVersioned(op *history.Op, write bool, val, key int64) (Op, error) {
	ver, ok := op.Version.Int()
	if !ok {
		return Op{}, errors.New("operation has no integer version, but the history's other operations have versions (give every read and write one, or none)")
	}
	kind := vReadRaw
	if write {
		kind = vWriteRaw
	}
	return Op{Kind: kind, A: val, B: key, C: ver}, nil
}

// errVersionedOther is the error for a cas or an append in a history that
// uses versions.
var errVersionedOther = errors.New("versions are understood on reads and writes only; this history gives versions, so it cannot have this operation")

// finishVersions completes the versioned operations among ops: per key
// (Op.B), writes are ranked by version and a write's A becomes the state it
// sets, rank<<rankShift | id of the pair [value version]; a read's A becomes
// the one state it is legal in (the state its version's write sets when that
// write wrote the value read, the initial state initID when no write has its
// version and it read the initial value, else noState). Afterwards B holds
// the value's id and C the version, for explanations. pair interns a pair.
func finishVersions(ops []Op, initID int64, pair func(val, ver int64) int64) error {
	type keyVer struct{ key, ver int64 }
	byKey := make(map[int64][]int)
	var keys []int64
	for i := range ops {
		if ops[i].Kind == vWriteRaw {
			k := ops[i].B
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], i)
		}
	}
	writer := make(map[keyVer]int)
	for _, k := range keys {
		ws := byKey[k]
		sort.SliceStable(ws, func(a, b int) bool { return ops[ws[a]].C < ops[ws[b]].C })
		for r, i := range ws {
			o := &ops[i]
			if r > 0 && ops[ws[r-1]].C == o.C {
				return &OpsError{Ops: []int{ws[r-1], i}, Msg: fmt.Sprintf("two writes of one key carry version %d", o.C)}
			}
			p := pair(o.A, o.C)
			if p > idMask || r+1 > idMask>>1 {
				return &OpsError{Ops: []int{i}, Msg: "too many versioned values to check"}
			}
			val := o.A
			o.Kind, o.A, o.B = vWrite, int64(r+1)<<rankShift|p, val
			writer[keyVer{k, o.C}] = i
		}
	}
	for i := range ops {
		o := &ops[i]
		if o.Kind != vReadRaw {
			continue
		}
		val := o.A
		w, ok := writer[keyVer{o.B, o.C}]
		switch {
		case ok && ops[w].B == val:
			o.A = ops[w].A
		case ok:
			o.A = noState
		case val == initID:
			o.A = initID
		default:
			o.A = noState
		}
		o.Kind, o.B = vRead, val
	}
	return nil
}

// VersionKind says what a compiled operation is as far as versions go.
type VersionKind uint8

// Version kinds.
const (
	// NotVersioned: the operation carries no version the model reads (a
	// model without Options.Versions, a read of unknown outcome, a read of
	// nil under NilIsAny).
	NotVersioned VersionKind = iota
	// VersionedWrite: a write, at its place in its key's version order.
	VersionedWrite
	// VersionedRead: a read of known outcome, legal only right after the
	// write at its place (0: the initial value, -1: nowhere).
	VersionedRead
)

// VersionOrder is implemented by models that compile versions: checkers
// that know the facts of versions (each write's place in its key's order,
// the write each read read) can decide from them directly, rather than
// search. Places are those of one finished set of operations (one key's,
// for keyed models).
type VersionOrder interface {
	Versioned(op *Op) (VersionKind, int64)
}

func versionedOp(op *Op) (VersionKind, int64) {
	switch op.Kind {
	case vWrite:
		return VersionedWrite, op.A >> rankShift
	case vRead:
		switch {
		case op.Unknown:
			return NotVersioned, 0
		case op.A == noState:
			return VersionedRead, -1
		}
		return VersionedRead, op.A >> rankShift
	}
	return NotVersioned, 0
}

// stepVersioned is Step for the versioned codes.
func stepVersioned(s int64, op *Op) (int64, bool) {
	switch op.Kind {
	case vRead:
		return s, op.Unknown || op.A == s
	case vWrite:
		if op.A>>rankShift <= s>>rankShift {
			return s, false
		}
		return op.A, true
	}
	// A raw code means Finish was not called: nothing is legal.
	return s, false
}

// describeState renders a state whose value (or [value version] pair, for
// a written versioned state) is v.
func describeState(s int64, v history.Value) string {
	if s>>rankShift > 0 && v.Kind() == history.List && v.Len() == 2 {
		e := v.Elems()
		return fmt.Sprintf("%s (version %s)", describeValue(e[0]), e[1])
	}
	return describeValue(v)
}

// explainVersioned says why a versioned op is illegal in s; what names the
// object ("the register", "the key"), val renders a value id and state
// renders s.
func explainVersioned(op *Op, what string, val func(int64) string, state string) string {
	switch op.Kind {
	case vRead:
		if op.A == noState {
			return fmt.Sprintf("read %s at version %d, which is neither the value the write of version %d wrote nor an initial value no write replaced",
				val(op.B), op.C, op.C)
		}
		return fmt.Sprintf("read %s at version %d but %s holds %s", val(op.B), op.C, what, state)
	case vWrite:
		return fmt.Sprintf("write of version %d after %s holds %s: writes take effect in version order", op.C, what, state)
	}
	return ""
}
