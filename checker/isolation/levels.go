// Package isolation decides isolation levels of rw-register histories
// with unique writes exactly: a verdict true means a commit order (an
// arbitration) exists under which every read is explained, and comes with
// one; a verdict false names the transactions that rule every such order
// out. The levels are those of Biswas and Enea ("On the complexity of
// checking transactional consistency", OOPSLA 2019) and Cerone, Bernardi
// and Gotsman ("A framework for transactional consistency models with
// atomic visibility", CONCUR 2015): read committed, read atomic, causal
// consistency, prefix consistency, parallel snapshot isolation, snapshot
// isolation and serializability.
//
// Read committed, read atomic and causal consistency are decided by
// saturation, as AWDIT (Møldrup and Pavlogiannis, PLDI 2025) does: the
// commit-order edges the reads force are added to session order and
// reads-from, and the level holds exactly when the result is acyclic. The
// others are NP-complete; they are decided by a search over the unknown
// orders of each key's writers, pruned by reachability as Cobra and PolySI
// prune, within a step budget past which the verdict is unknown.
package isolation

// The levels this package decides, named in Elle's style.
const (
	ReadCommitted     = "read-committed-biswas-enea"
	ReadAtomic        = "read-atomic"
	Causal            = "causal-cerone"
	Prefix            = "prefix"
	ParallelSnapshot  = "parallel-snapshot-isolation"
	SnapshotIsolation = "snapshot-isolation"
	Serializable      = "serializable"
)

// Levels lists the levels, strongest first.
var Levels = []string{Serializable, SnapshotIsolation, Prefix, ParallelSnapshot, Causal, ReadAtomic, ReadCommitted}

// Added lists the levels this package adds to Elle's: snapshot isolation
// and serializability are Elle's too, and are refined here.
var Added = []string{Prefix, ParallelSnapshot, Causal, ReadAtomic, ReadCommitted}

// Implies lists, per level, the levels every history that satisfies it
// satisfies too (directly). Serializable ⇒ snapshot isolation is Elle's
// edge already.
var Implies = map[string][]string{
	SnapshotIsolation: {Prefix, ParallelSnapshot},
	Prefix:            {Causal},
	ParallelSnapshot:  {Causal},
	Causal:            {ReadAtomic},
	ReadAtomic:        {ReadCommitted},
}

// Known reports whether level is one this package decides.
func Known(level string) bool {
	for _, l := range Levels {
		if l == level {
			return true
		}
	}
	return false
}

// kind says how a level is decided.
type kind uint8

const (
	saturated kind = iota // polynomial: saturation, then acyclicity
	searched              // NP-complete: search over write orders
)

func kindOf(level string) kind {
	switch level {
	case ReadCommitted, ReadAtomic, Causal:
		return saturated
	}
	return searched
}
