package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/histcheck/histcheck/history"
)

// NoToken marks a state in which no fencing token has been seen yet, or an
// operation that carries none.
const NoToken int64 = math.MinInt64

// Operation codes of the lock and lease models (Op.Kind).
const (
	lockAcquire uint8 = iota
	lockRelease
	lockRenew
)

// LockState is a state of the lock model.
type LockState struct {
	// Holder is the Table id of the holding client's name, 0 when free.
	Holder int64
	// Token is the highest fencing token handed out so far, or NoToken.
	Token int64
}

// lock is an owner-aware lock with optional fencing tokens. A compiled
// operation has A = the client's id (its name interned in the Table) and
// B = the acquire's token or NoToken.
type lock struct{ info Info }

// NewLock returns the owner-aware lock model. It starts free; opts are not
// used.
//
// Legal: an acquire by client C while the lock is free, after which C holds
// it; a release by the holder, after which it is free. If an acquire carries
// a fencing token (its token field, else its value when that is an integer)
// the token must be greater than every token an earlier acquire carried.
// Anything else is a violation: a successful release by a client that does
// not hold the lock, an acquire while another client (or the same one) holds
// it, which would make two holders at once, and a token that did not
// increase. Identity is the client name as written in the history, so a
// client that continues after an operation of unknown outcome is still the
// same holder.
func NewLock(Options) Model[LockState] {
	return &lock{info: Info{
		Name: "lock",
		Doc: "One lock that records its holder (the client that acquired it); it starts free. " +
			"Only the holder may release it, and fencing tokens, when acquires return them, must strictly increase.",
		Ops: []OpInfo{
			{Names: []string{"acquire", "lock"}, Value: "int (the fencing token; optional, or in the token field)",
				Doc: "takes the lock; legal only while it is free, and only with a token greater than every earlier one"},
			{Names: []string{"release", "unlock"}, Value: "ignored",
				Doc: "frees the lock; legal only for the client that holds it (a release that did nothing must be recorded as failed)"},
		},
	}}
}

func (m *lock) Info() Info { return m.info }

func (m *lock) Compile(op *history.Op, t *Table) (Op, error) {
	switch op.F {
	case "acquire", "lock":
		c, err := clientID(op, t)
		if err != nil {
			return Op{}, err
		}
		tok, err := acquireToken(op)
		if err != nil {
			return Op{}, err
		}
		return Op{Kind: lockAcquire, A: c, B: tok}, nil
	case "release", "unlock":
		c, err := clientID(op, t)
		if err != nil {
			return Op{}, err
		}
		return Op{Kind: lockRelease, A: c}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *lock) Init(*Table) LockState { return LockState{Token: NoToken} }

func (m *lock) Step(s LockState, op *Op) (LockState, bool) {
	switch op.Kind {
	case lockAcquire:
		if s.Holder != 0 || !tokenIncreases(s.Token, op.B) {
			return s, false
		}
		return LockState{Holder: op.A, Token: max(s.Token, op.B)}, true
	case lockRelease:
		if s.Holder != op.A {
			return s, false
		}
		return LockState{Token: s.Token}, true
	}
	return s, false
}

func (m *lock) Describe(s LockState, t *Table) string {
	if s.Holder == 0 {
		return "free" + lastToken(s.Token)
	}
	d := "held by " + clientName(t, s.Holder)
	if s.Token != NoToken {
		d += fmt.Sprintf(" (token %d)", s.Token)
	}
	return d
}

// Explain names the violation: two holders, a release by a non-holder, or
// a token that went backwards.
func (m *lock) Explain(s LockState, op *Op, t *Table) string {
	who := clientName(t, op.A)
	switch op.Kind {
	case lockAcquire:
		switch {
		case s.Holder == op.A:
			return fmt.Sprintf("%s acquired the lock but already holds it: two holders at once", who)
		case s.Holder != 0:
			return fmt.Sprintf("%s acquired the lock while %s still holds it: two holders at once", who, clientName(t, s.Holder))
		}
		return tokenBackwards(who, s.Token, op.B)
	case lockRelease:
		return releaseByNonHolder(who, s.Holder, t)
	}
	return ""
}

// Delta counts the holders as the mutex does (model.Counting): an order
// the lock allows has one holder at most, so it keeps the count at 0 or 1;
// the owner and the tokens forbid more besides.
func (m *lock) Delta(op *Op) int {
	if op.Kind == lockAcquire {
		return 1
	}
	return -1
}

// Capacity is one holder at a time.
func (m *lock) Capacity() int { return 1 }

// Owner is the client that acquires or releases (model.Owned).
func (m *lock) Owner(op *Op) int64 { return op.A }

// clientID interns the operation's client name: lock identity is the name,
// not the logical process, which changes after an unknown outcome.
func clientID(op *history.Op, t *Table) (int64, error) {
	if op.Client == "" {
		return 0, errors.New("lock operations need a process name to tell holders apart")
	}
	return t.ID(history.StringValue(op.Client)), nil
}

// clientName renders an interned client name.
func clientName(t *Table, id int64) string {
	if s, ok := t.Value(id).Str(); ok {
		return s
	}
	return t.Value(id).String()
}

// acquireToken reads an acquire's fencing token: the token field, else the
// value when it is an integer. Other values (a random string, as Redis
// clients use) are not ordered and carry no token.
func acquireToken(op *history.Op) (int64, error) {
	if !op.Token.IsNone() && !op.Token.IsNil() {
		n, ok := op.Token.Int()
		if !ok || n == NoToken {
			return 0, fmt.Errorf("token must be an integer, got %s", describeValue(op.Token))
		}
		return n, nil
	}
	if n, ok := op.Value.Int(); ok && n != NoToken {
		return n, nil
	}
	return NoToken, nil
}

// tokenIncreases reports whether an acquire's token tok may follow the
// highest token handed out so far. An acquire without a token is always
// fine: its token, if it had one, is not known.
func tokenIncreases(highest, tok int64) bool {
	return tok == NoToken || highest == NoToken || tok > highest
}

func tokenBackwards(who string, highest, tok int64) string {
	if tokenIncreases(highest, tok) {
		return ""
	}
	if tok == highest {
		return fmt.Sprintf("%s acquired with token %d, which was already handed out: the fencing token did not increase", who, tok)
	}
	return fmt.Sprintf("%s acquired with token %d, but token %d was already handed out: the fencing token went backwards", who, tok, highest)
}

func releaseByNonHolder(who string, holder int64, t *Table) string {
	if holder == 0 {
		return fmt.Sprintf("a release by %s succeeded but the lock is free: a release by a client that is not the holder", who)
	}
	return fmt.Sprintf("a release by %s succeeded but %s holds the lock: a release by a client that is not the holder", who, clientName(t, holder))
}

func lastToken(tok int64) string {
	if tok == NoToken {
		return ""
	}
	return fmt.Sprintf(" (last token %d)", tok)
}
