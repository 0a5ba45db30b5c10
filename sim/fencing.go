package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// FencingStep is one step of the stock example's timeline.
type FencingStep struct {
	At     int64  // ms
	Client string // A or B
	Event  string // what happened, in words
	Stock  int    // the stored stock after the step
	op     *history.Op
}

// FencingResult is one run of the stock example.
type FencingResult struct {
	Fencing    bool
	Steps      []FencingStep
	FinalStock int
	Rejected   int // storage writes refused for a stale token
}

// The stock example's setting.
const (
	fencingLease     = 10_000 // ms
	fencingLastToken = 32
	fencingStock     = 10
)

// lockService hands out leases with increasing fencing tokens.
type lockService struct {
	lastToken int64
	holder    string
	until     int64 // the holder's lease ends here (ms)
}

// acquire grants the lock if it is free or its lease has run out.
func (s *lockService) acquire(client string, at, lease int64) (token int64, ok bool) {
	if s.holder != "" && at < s.until {
		return 0, false
	}
	s.lastToken++
	s.holder, s.until = client, at+lease
	return s.lastToken, true
}

func (s *lockService) release(client string) {
	if s.holder == client {
		s.holder = ""
	}
}

// storage is the stock, optionally fenced: it refuses writes whose token is
// lower than the highest it has accepted.
type storage struct {
	fenced  bool
	value   int
	highest int64
}

func (s *storage) write(v int, token int64) bool {
	if s.fenced && token < s.highest {
		return false
	}
	s.value, s.highest = v, max(s.highest, token)
	return true
}

// Fencing runs the stock example: A (selling 1) and B (selling 2) share a
// lock with 10 s leases; A pauses from 2 s to 15 s, past its lease. Without
// fencing the storage takes A's stale write and the stock ends at 9, a lost
// update; with fencing it refuses token 33, A starts over, and the stock
// ends at 7.
func Fencing(enabled bool) FencingResult {
	lock := &lockService{lastToken: fencingLastToken}
	store := &storage{fenced: enabled, value: fencingStock}
	res := FencingResult{Fencing: enabled}
	lockKey, stockKey := history.StringValue("lock"), history.StringValue("stock")
	step := func(at int64, client, event string, o *history.Op) {
		res.Steps = append(res.Steps, FencingStep{At: at, Client: client, Event: event, Stock: store.value, op: o})
	}
	// Each storage or lock call takes 10 ms.
	acquire := func(client string, at int64) int64 {
		tok, ok := lock.acquire(client, at, fencingLease)
		if !ok {
			step(at, client, client+" fails to acquire the lock", nil)
			return 0
		}
		v := history.IntValue(tok)
		o := op(client, "acquire", lockKey, v, at, at+10, history.OK)
		o.Token = v
		step(at, client, fmt.Sprintf("%s acquires the lock (token %d, lease until %d s)", client, tok, lock.until/1000), &o)
		return tok
	}
	read := func(client string, at int64) int {
		v := store.value
		o := op(client, "read", stockKey, history.IntValue(int64(v)), at, at+10, history.OK)
		step(at, client, fmt.Sprintf("%s reads stock %d", client, v), &o)
		return v
	}
	write := func(client string, at int64, v int, token int64) bool {
		ok := store.write(v, token)
		o := op(client, "write", stockKey, history.IntValue(int64(v)), at, at+10, history.OK)
		o.Token = history.IntValue(token)
		event := fmt.Sprintf("%s writes %d with token %d", client, v, token)
		if !ok {
			o.Status = history.Fail
			res.Rejected++
			event += fmt.Sprintf(": rejected, the storage has accepted token %d", store.highest)
		}
		step(at, client, event, &o)
		return ok
	}
	release := func(client string, at int64, token int64) {
		lock.release(client)
		o := op(client, "release", lockKey, history.Value{}, at, at+10, history.OK)
		o.Token = history.IntValue(token)
		step(at, client, client+" releases the lock", &o)
	}

	tokA := acquire("A", 0)
	stockA := read("A", 1000)
	step(2000, "A", "A pauses (GC) until 15 s", nil)
	tokB := acquire("B", 11_000)
	stockB := read("B", 12_000)
	write("B", 13_000, stockB-2, tokB)
	release("B", 13_020, tokB)
	if !write("A", 15_000, stockA-1, tokA) {
		tokA = acquire("A", 16_000)
		stockA = read("A", 16_020)
		write("A", 17_000, stockA-1, tokA)
	}
	res.FinalStock = store.value
	return res
}

// Table renders the timeline in whole seconds, as the chapter tells it
// (steps within a second keep their order).
func (r FencingResult) Table() string {
	var rows [][]string
	for _, s := range r.Steps {
		rows = append(rows, []string{fmtSeconds(s.At), s.Event, fmt.Sprint(s.Stock)})
	}
	var sb strings.Builder
	if r.Fencing {
		sb.WriteString("With fencing tokens:\n\n")
	} else {
		sb.WriteString("Without fencing tokens:\n\n")
	}
	sb.WriteString(mdTable([]string{"time (s)", "event", "stock"}, rows))
	verdict := "the right result"
	if r.FinalStock != fencingStock-3 {
		verdict = fmt.Sprintf("a lost update (the right result is %d)", fencingStock-3)
	}
	fmt.Fprintf(&sb, "\nFinal stock %d: %s.\n", r.FinalStock, verdict)
	return sb.String()
}

// fmtSeconds writes a time in ms as the second it falls in.
func fmtSeconds(ms int64) string { return fmt.Sprint(ms / 1000) }

// FencingModel is how the stock example's history is checked: the lock as
// a lease, the stock as a register that refuses stale tokens.
const FencingModel = "lock=lease,stock=fenced-register"

// History returns the run's lock operations (key "lock": acquire with the
// token as value and Token, release) and storage operations (key "stock",
// starting at 10: read, write carrying the writer's token; a refused write
// fails), times in ms. Its settings name FencingModel, the initial stock
// and the 10 s lease.
func (r FencingResult) History() (*history.History, error) {
	var ops []history.Op
	for _, s := range r.Steps {
		if s.op != nil {
			ops = append(ops, *s.op)
		}
	}
	return build("fencing", ops, metaTTL(FencingModel, history.IntValue(fencingStock), fencingLease))
}

// shows says what the run's table shows and how its history is judged.
func (r FencingResult) shows() string {
	if !r.Fencing {
		return "A's lease ran out during its pause, yet the storage took its write with token 33 after B's with token 34: " +
			"a lost update, which a plain register check of the stock passes. " +
			"Checked with the lease model for the lock (TTL 10 s) and the fenced-register model for the stock, " +
			"the history is not linearizable, and its core is the two writes."
	}
	return "The storage remembered token 34 and refused A's late write with 33; A took the lock again and the stock ends at 7. " +
		"Checked with the lease model for the lock (TTL 10 s) and the fenced-register model for the stock, the history passes."
}

func fencingScenario() Scenario {
	flags := []Flag{{Name: "fencing", Default: "off", Usage: "on: the storage refuses stale fencing tokens; off: it accepts every write"},
		{Name: "late", Default: "off", Usage: "on: B's first write comes after A's late one (implies --fencing on)"},
		{Name: "register", Default: "off", Usage: "with --late on: B registers its token with the storage as soon as it acquires"}}
	return Scenario{
		Name:        "fencing",
		Description: "a lease outlived by a GC pause: the stock example without and with fencing tokens",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			on, err := parseChoice("fencing", v["fencing"], "on", "off")
			if err != nil {
				return nil, err
			}
			late, err := parseChoice("late", v["late"], "on", "off")
			if err != nil {
				return nil, err
			}
			register, err := parseChoice("register", v["register"], "on", "off")
			if err != nil {
				return nil, err
			}
			if late == "on" {
				v["fencing"] = "on"
				res := FencingLate(register == "on")
				h, err := build("fencing", append([]history.Op(nil), res.tl.ops...), metaTTL(FencingLateModel, history.IntValue(fencingStock), fencingLease))
				if err != nil {
					return nil, err
				}
				expect := verdictOf(register == "on")
				return &Output{Table: closing(res.lateTable(), res.lateShows(), "fencing", flags, v, expect), History: h, Model: FencingLateModel,
					Options: model.Options{Init: history.IntValue(fencingStock), TTL: fencingLease}, Expect: expect}, nil
			}
			if register == "on" {
				return nil, fmt.Errorf("register: only with --late on")
			}
			res := Fencing(on == "on")
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := map[bool]string{false: "false", true: "true"}[res.Fencing]
			return &Output{Table: closing(res.Table(), res.shows(), "fencing", flags, v, expect), History: h, Model: FencingModel,
				Options: model.Options{Init: history.IntValue(fencingStock), TTL: fencingLease}, Expect: expect}, nil
		},
	}
}
