package model

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// LeaseState is a state of the lease model.
type LeaseState struct {
	// Holder is the Table id of the holding client's name, 0 when free.
	Holder int64
	// Expires is the earliest time the holder's lease can end: the call time
	// of the grant (or of the latest renew) plus its TTL. It is 0 when free.
	Expires int64
	// Token is the highest fencing token handed out so far, or NoToken.
	Token int64
}

// lease is the lock whose grant expires. A compiled operation has A = the
// client's id, B = the acquire's token or NoToken, C = the TTL of an
// acquire or renew.
type lease struct {
	info Info
	ttl  int64
}

// NewLease returns the lease model: the lock of NewLock whose grant lasts a
// TTL, opts.TTL or the ttl field of the acquire or renew, in the history's
// own time unit. An acquire or renew with neither is a compile error.
//
// A linearization places each operation at some point in [call, return],
// but the model sees only the order, so it judges expiry leniently enough
// that no correct run is flagged: a grant made somewhere in [call, return]
// lasts at least until call + TTL, and a later acquire happened no later
// than its own return. Legal, therefore:
//
//   - acquire by C when the lock is free, or when the holder's lease may
//     have expired: the acquire's return ≥ the holder's call + TTL (of the
//     grant or of its latest renew). C may be the holder itself. The lease
//     then runs until at least the acquire's call + TTL. A fencing token (the
//     token field, else an integer value) must exceed every earlier token.
//   - renew by the holder (whether or not its lease has run out, as long as
//     no other client has acquired): the lease then runs until at least the
//     renew's call + TTL.
//   - release by the holder, after which the lock is free.
//
// Violations: an acquire while another client's lease is certainly in force
// (two holders at once), a token that did not increase, and a successful
// release or renew by a client that is not the holder, such as a client
// whose lease expired and was taken over.
func NewLease(opts Options) Model[LeaseState] {
	return &lease{ttl: opts.TTL, info: Info{
		Name: "lease",
		Doc: "One lock whose grant expires a TTL after it is made unless the holder renews it; it starts free. " +
			"Another client may acquire once the holder's lease may have expired (its acquire returned no earlier than " +
			"the grant's call + TTL). Only the holder may release or renew, and fencing tokens, when acquires return them, must strictly increase.",
		Ops: []OpInfo{
			{Names: []string{"acquire", "lock"}, Value: "int (the fencing token; optional, or in the token field); optional ttl field",
				Doc: "takes the lock; legal while it is free or the holder's lease may have expired, and only with a token greater than every earlier one"},
			{Names: []string{"renew", "refresh", "keepalive"}, Value: "ignored; optional ttl field",
				Doc: "extends the holder's lease to the renew's call + TTL; legal only for the holder"},
			{Names: []string{"release", "unlock"}, Value: "ignored",
				Doc: "frees the lock; legal only for the holder (a release that did nothing must be recorded as failed)"},
		},
	}}
}

func (m *lease) Info() Info { return m.info }

func (m *lease) Compile(op *history.Op, t *Table) (Op, error) {
	var kind uint8
	switch op.F {
	case "acquire", "lock":
		kind = lockAcquire
	case "renew", "refresh", "keepalive":
		kind = lockRenew
	case "release", "unlock":
		kind = lockRelease
	default:
		return Op{}, UnknownOpError(m.info, op.F)
	}
	c, err := clientID(op, t)
	if err != nil {
		return Op{}, err
	}
	o := Op{Kind: kind, A: c, B: NoToken}
	if kind == lockRelease {
		return o, nil
	}
	if o.C, err = leaseTTL(op, m.ttl); err != nil {
		return Op{}, err
	}
	if kind == lockAcquire {
		if o.B, err = acquireToken(op); err != nil {
			return Op{}, err
		}
	}
	return o, nil
}

// leaseTTL reads the operation's ttl field, else the model's TTL.
func leaseTTL(op *history.Op, def int64) (int64, error) {
	for _, f := range op.Extra {
		if f.Name != "ttl" {
			continue
		}
		n, ok := f.Value.Int()
		if !ok || n <= 0 {
			return 0, fmt.Errorf("ttl must be a positive integer in the history's time unit, got %s", describeValue(f.Value))
		}
		return n, nil
	}
	if def <= 0 {
		return 0, fmt.Errorf("%s needs a lease length: set the model's TTL or give the operation a ttl field", op.F)
	}
	return def, nil
}

func (m *lease) Init(*Table) LeaseState { return LeaseState{Token: NoToken} }

func (m *lease) Step(s LeaseState, op *Op) (LeaseState, bool) {
	switch op.Kind {
	case lockAcquire:
		if s.Holder != 0 && op.End < s.Expires || !tokenIncreases(s.Token, op.B) {
			return s, false
		}
		return LeaseState{Holder: op.A, Expires: addSat(op.Start, op.C), Token: max(s.Token, op.B)}, true
	case lockRenew:
		if s.Holder != op.A {
			return s, false
		}
		s.Expires = addSat(op.Start, op.C)
		return s, true
	case lockRelease:
		if s.Holder != op.A {
			return s, false
		}
		return LeaseState{Token: s.Token}, true
	}
	return s, false
}

// addSat adds without overflowing past history.Infinity.
func addSat(a, b int64) int64 {
	if b > 0 && a > history.Infinity-b {
		return history.Infinity
	}
	return a + b
}

func (m *lease) Describe(s LeaseState, t *Table) string {
	if s.Holder == 0 {
		return "free" + lastToken(s.Token)
	}
	d := fmt.Sprintf("held by %s, lease until at least %d", clientName(t, s.Holder), s.Expires)
	if s.Token != NoToken {
		d += fmt.Sprintf(", token %d", s.Token)
	}
	return d
}

// Explain names the violation: two holders, a release or renew by a
// non-holder, or a token that went backwards.
func (m *lease) Explain(s LeaseState, op *Op, t *Table) string {
	who := clientName(t, op.A)
	switch op.Kind {
	case lockAcquire:
		if s.Holder != 0 && op.End < s.Expires {
			if s.Holder == op.A {
				return fmt.Sprintf("%s acquired the lock but already holds it (its lease lasts until at least %d, after the acquire returned at %d): two holders at once",
					who, s.Expires, op.End)
			}
			return fmt.Sprintf("%s acquired the lock while %s's lease was still in force (it lasts until at least %d, and the acquire returned at %d): two holders at once",
				who, clientName(t, s.Holder), s.Expires, op.End)
		}
		return tokenBackwards(who, s.Token, op.B)
	case lockRenew:
		if s.Holder == 0 {
			return fmt.Sprintf("a renew by %s succeeded but the lock is free: a renew by a client that is not the holder", who)
		}
		return fmt.Sprintf("a renew by %s succeeded but %s holds the lock: a renew by a client that is not the holder", who, clientName(t, s.Holder))
	case lockRelease:
		return releaseByNonHolder(who, s.Holder, t)
	}
	return ""
}
