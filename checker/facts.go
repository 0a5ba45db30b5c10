package checker

// A violation is facts: the operations involved, the relations between
// them and the reason as data. Engines fill them; package report alone
// turns them into words, so that every report form (text, JSON, JUnit, the
// web page, a core's story) says the same thing and an engine never writes
// prose. Operations are named by their position in History.Ops, like
// Violation.Ops; None and Initial stand where a fact names no operation.

const (
	// None stands for "no operation" in a fact whose operation is
	// optional (Step.Via, Step.Seen, Zone.FromOp).
	None = -1
	// Initial stands for the initial value, as if written before
	// everything, where a fact names the write a value came from
	// (Step.From and To, Step.Source).
	Initial = -2
)

// Relation is why one operation must take effect before another: the
// kind of a Step. The orders a criterion builds on (each process's order,
// real time, the versions) and what reads observed (which write each read
// read) combine into the relations below; a chain or a cycle of them is
// what makes a history violate a criterion.
type Relation uint8

// Relations. Where a relation rests on an order the criterion builds (the
// causal order, a session's view, the single order of sequential
// consistency), the violation's Pattern says which.
const (
	// RelNone: the checker names no reason; From comes before To.
	RelNone Relation = iota
	// RelProcess: From came before To in their process.
	RelProcess
	// RelRealTime: From returned before To was called.
	RelRealTime
	// RelReadsFrom: To read what From wrote (From may be Initial).
	RelReadsFrom
	// RelVersion: From carries an older version of the key than To.
	RelVersion
	// RelInitial: From is the initial value, older than every write of
	// its key, To among them.
	RelInitial
	// RelBeforeSource: Via read what To wrote, although From comes
	// before Via; so From must come before To, or Via would not return
	// To's value.
	RelBeforeSource
	// RelReplaced: From read Source's value, and the write To comes
	// after Source; so From must come before To, or it would read To's
	// value or a later one. Source may be Initial.
	RelReplaced
	// RelKnown: a session knew From (it wrote From, or read it with
	// Seen), and later its read Via returned To; so From is older than
	// To. Without Via, To is the session's read itself.
	RelKnown
	// RelIssued: Via read From before its process issued To; so From is
	// older than To.
	RelIssued
)

// Step is one edge of a chain or a cycle of relations: From must take
// effect before To, because of Rel. Steps[i].To is Steps[i+1].From; in a
// cycle the last step's To is the first step's From.
type Step struct {
	From, To int
	Rel      Relation
	// Via is the read the relation rests on (RelBeforeSource, RelKnown,
	// RelIssued), or None.
	Via int
	// Source is the write From read (RelReplaced), or Initial.
	Source int
	// Seen is the read with which a session saw From (RelKnown), or
	// None when the session wrote From itself.
	Seen int
}

// Version is the version an operation carries, as the checker read it.
type Version struct {
	Op      int
	Version int64
}

// Zone is the stretch of time a value constrains, for the zone-based
// decision of registers with unique values: a forward zone runs from its
// operations' earliest return to their latest call, and the value must be
// held throughout; a backward zone runs from their latest call to their
// earliest return, and the value is held at some instant of it.
type Zone struct {
	// Value is the value, as the model describes it.
	Value string
	// Initial says the value is the initial value (Write is then None).
	Initial bool
	// Write is the write of the value.
	Write int
	// From and To are the zone's ends, in the compiled history's times;
	// FromOp and ToOp are the operations there (FromOp is None when the
	// zone starts with the initial value).
	From, To     int64
	FromOp, ToOp int
}

// Stuck is an operation that could not go next where a search stopped,
// and what the model said about it.
type Stuck struct {
	Op int
	// Legal says the model allows Op there, but every order going on
	// with it fails later.
	Legal bool
	// Said is the model's words for why Op is illegal there
	// (model.Explainer), in the model's own vocabulary; with State set it
	// is instead the model's description of the state (model's Describe),
	// for a model that says nothing more.
	Said  string
	State bool
}

// MapOps returns v with every operation it names renamed by f: its Ops
// and Prefix and the operations of its facts. f is not called for None
// and Initial, which stay as they are. Results about a part of a history
// are renamed so into the whole history's positions.
func (v Violation) MapOps(f func(int) int) Violation {
	one := func(x int) int {
		if x < 0 {
			return x
		}
		return f(x)
	}
	v.Ops, v.Prefix, v.Writes = mapEach(v.Ops, one), mapEach(v.Prefix, one), mapEach(v.Writes, one)
	v.Op, v.Source, v.Newer, v.Session = one(v.Op), one(v.Source), one(v.Newer), one(v.Session)
	v.Steps = mapEach(v.Steps, func(s Step) Step {
		s.From, s.To, s.Via, s.Source, s.Seen = one(s.From), one(s.To), one(s.Via), one(s.Source), one(s.Seen)
		return s
	})
	v.Versions = mapEach(v.Versions, func(x Version) Version { x.Op = one(x.Op); return x })
	v.Zones = mapEach(v.Zones, func(z Zone) Zone {
		z.Write, z.FromOp, z.ToOp = one(z.Write), one(z.FromOp), one(z.ToOp)
		return z
	})
	v.Stuck = mapEach(v.Stuck, func(s Stuck) Stuck { s.Op = one(s.Op); return s })
	if v.Count != nil {
		c := *v.Count
		c.Upto = one(c.Upto)
		v.Count = &c
	}
	return v
}

// mapEach returns a copy of xs with f applied to each element (nil for
// nil), so that a renamed violation shares nothing with the original.
func mapEach[T any](xs []T, f func(T) T) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// Cite records that the reason cites version n of operation p (once).
func (v *Violation) Cite(p int, n int64) {
	if _, ok := v.VersionOf(p); !ok {
		v.Versions = append(v.Versions, Version{Op: p, Version: n})
	}
}

// VersionOf returns the version v cites for operation p.
func (v *Violation) VersionOf(p int) (int64, bool) {
	for _, x := range v.Versions {
		if x.Op == p {
			return x.Version, true
		}
	}
	return 0, false
}

// Count is why no order, whatever it is, keeps the count of a counting
// model (model.Counting: a lock's holders) within 0..Capacity. The
// operations counted are every operation, counted at the end (Upto is
// None), or one process's operations up to and including Upto, counted
// when Upto takes effect. Of those, Up raise the count and Down lower it;
// of unknown outcome, MayUp more may raise it and MayDown lower it. The
// other processes can meanwhile have moved the count by OthersLeast at
// least and OthersMost at most (0 and 0 at the end, when they are
// counted too). Every choice lands outside 0..Capacity.
//
// With InOrder, the other processes' operations are counted in their
// order instead: no interleaving of the process's operations up to Upto
// with prefixes of theirs keeps the count within 0..Capacity at every
// step (OthersLeast and OthersMost are then 0 and unused).
//
// With OneClient, only the operations of one client were counted, the
// client of the violation's operations: a lock that records its holder
// is decided client by client, and each client's operations must have an
// order of their own.
type Count struct {
	Upto                    int
	Up, Down                int
	MayUp, MayDown          int
	OthersLeast, OthersMost int
	Capacity                int
	InOrder                 bool
	OneClient               bool
}

// Least and Most are the lowest and highest count every choice of the
// operations of unknown outcome can give, the other processes included.
func (c *Count) Least() int { return c.Up - c.Down - c.MayDown + c.OthersLeast }

// Most: see Least.
func (c *Count) Most() int { return c.Up - c.Down + c.MayUp + c.OthersMost }
