package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// The Redlock scenario's setting.
const (
	RedlockSeed    = 8
	redlockMasters = 5
	redlockTTL     = 10_000 // ms
	redlockRTT     = 2      // ms per SET, sent to the masters one after another
)

// redlockDrift is the clock-drift allowance Redlock subtracts from the
// validity: 1% of the TTL plus 2 ms.
const redlockDrift = redlockTTL/100 + 2

// RedlockStep is one line of the Redlock timeline.
type RedlockStep struct {
	From, To int64 // ms
	Event    string
}

// RedlockResult is one run of the Redlock scenario.
type RedlockResult struct {
	Monotonic bool // storage writes carry a monotonic fencing token
	// Fenced is set when the storage refuses tokens lower than one it has
	// accepted (the tokens are then monotonic).
	Fenced bool
	// ClockJump is set for the clock-jump story (see RedlockClockJump).
	ClockJump bool
	Steps     []RedlockStep
	// Validity is how long each client's lock was valid after acquiring (ms).
	Validity map[string]int64
	// Overlap is when both A and B acted as holders: from B's acquire to
	// the end of A's write (ms).
	Overlap [2]int64
	ops     []history.Op
}

// Redlock runs the pause story on five independent masters: A sets the key
// on a majority, then pauses past its validity; the keys expire, B sets them
// on a majority, and A wakes and writes while B still holds the lock. With
// monotonic set, both clients also carry a fencing token from a counter
// (1 for A, 2 for B); Redlock's own random values are not ordered and can't
// serve as one.
func Redlock(monotonic bool, seed uint32) RedlockResult {
	return redlockPause(monotonic, false, seed)
}

// RedlockFenced is the pause story with monotonic tokens and storage that
// refuses a token lower than one it has accepted: A's late write fails.
func RedlockFenced(seed uint32) RedlockResult { return redlockPause(true, true, seed) }

func redlockPause(monotonic, fenced bool, seed uint32) RedlockResult {
	g := NewMulberry32(seed)
	var highest int64
	masters := make([]redisKey, redlockMasters)
	res := RedlockResult{Monotonic: monotonic, Fenced: fenced, Validity: map[string]int64{}}
	lockKey, storeKey := history.StringValue("lock"), history.StringValue("storage")
	step := func(from, to int64, format string, args ...any) {
		res.Steps = append(res.Steps, RedlockStep{From: from, To: to, Event: fmt.Sprintf(format, args...)})
	}
	values := map[string]string{}
	tokens := map[string]int64{}
	var lastToken int64
	acquire := func(client string, at int64) {
		values[client] = fmt.Sprintf("%08x%08x", g.Uint32(), g.Uint32())
		t := at
		var got []string
		for i := range masters {
			t += redlockRTT
			if masters[i].setNX(values[client], t, redlockTTL) {
				got = append(got, fmt.Sprintf("M%d", i+1))
			}
		}
		elapsed := t - at
		validity := int64(redlockTTL) - elapsed - redlockDrift
		o := op(client, "acquire", lockKey, history.StringValue(values[client]), at, t, history.OK)
		if 2*len(got) <= redlockMasters || validity <= 0 {
			o.Status = history.Fail
			step(at, t, "%s sets the key on %d of %d masters: no lock", client, len(got), redlockMasters)
		} else {
			res.Validity[client] = validity
			lastToken++
			tokens[client] = lastToken
			if monotonic {
				o.Token = history.IntValue(lastToken)
			}
			step(at, t, "%s sets the key on %s (%d of %d) in %d ms: valid for %d ms (TTL %d − %d elapsed − %d drift), until %d",
				client, strings.Join(got, ", "), len(got), redlockMasters, elapsed, validity, redlockTTL, elapsed, redlockDrift, t+validity)
		}
		res.ops = append(res.ops, o)
	}
	write := func(client string, at int64, why string) {
		o := op(client, "write", storeKey, history.StringValue(client), at, at+10, history.OK)
		tok := ""
		if monotonic {
			o.Token = history.IntValue(tokens[client])
			tok = fmt.Sprintf(" with token %d", tokens[client])
		}
		if fenced && tokens[client] < highest {
			o.Status = history.Fail
			why += fmt.Sprintf(": refused, the storage has accepted token %d", highest)
		}
		highest = max(highest, tokens[client])
		res.ops = append(res.ops, o)
		step(at, at+10, "%s writes to the storage%s%s", client, tok, why)
	}
	release := func(client string, at int64) {
		t := at
		deleted := 0
		for i := range masters {
			t += redlockRTT
			if masters[i].compareAndDelete(values[client], t) {
				deleted++
			}
		}
		st := history.Fail
		if deleted > 0 {
			st = history.OK
		}
		o := op(client, "release", lockKey, history.StringValue(values[client]), at, t, st)
		if monotonic {
			o.Token = history.IntValue(tokens[client])
		}
		res.ops = append(res.ops, o)
		step(at, t, "%s releases: its value is on %d of %d masters", client, deleted, redlockMasters)
	}

	acquire("A", 0)
	step(100, 12_000, "A pauses (GC)")
	step(redlockRTT+redlockTTL, redlockMasters*redlockRTT+redlockTTL, "A's keys expire on the masters")
	acquire("B", 10_500)
	res.Overlap[0] = res.ops[len(res.ops)-1].Return
	write("B", 11_000, "")
	write("A", 12_000, ", still believing it holds the lock")
	res.Overlap[1] = res.ops[len(res.ops)-1].Return
	release("A", 12_020)
	release("B", 13_000)
	return res
}

// Table renders the timeline in ms.
func (r RedlockResult) Table() string {
	if r.ClockJump {
		return r.clockJumpTable()
	}
	var rows [][]string
	for _, s := range r.Steps {
		at := fmt.Sprint(s.From)
		if s.To != s.From {
			at = fmt.Sprintf("%d–%d", s.From, s.To)
		}
		rows = append(rows, []string{at, s.Event})
	}
	var sb strings.Builder
	switch {
	case r.Fenced:
		sb.WriteString("Redlock with a monotonic fencing token added, checked by the storage:\n\n")
	case r.Monotonic:
		sb.WriteString("Redlock with a monotonic fencing token added:\n\n")
	default:
		sb.WriteString("Redlock (random values only):\n\n")
	}
	sb.WriteString(mdTable([]string{"time (ms)", "event"}, rows))
	fmt.Fprintf(&sb, "\nA and B both acted as holders from %d to %d ms.\n", r.Overlap[0], r.Overlap[1])
	fmt.Fprintf(&sb, "A client holds the lock only with the key on a majority, at least %d of the %d masters, and only for its validity.\n",
		redlockMasters/2+1, redlockMasters)
	return sb.String()
}

// History returns the run as a history of lock operations (key "lock",
// value the client's random value) and storage writes (key "storage"),
// times in ms; with a monotonic token, acquires, writes and releases carry it.
func (r RedlockResult) History() (*history.History, error) {
	if r.Fenced {
		return build("redlock", append([]history.Op(nil), r.ops...), metaTTL(RedlockFencedModel, history.Value{}, redlockTTL))
	}
	return build("redlock", append([]history.Op(nil), r.ops...), metaFor(RedlockModel, history.Value{}))
}

// RedlockFencedModel is how a fenced Redlock run is checked: the lock as the
// lease Redlock promises (the TTL), the storage as a register that refuses
// stale tokens.
const RedlockFencedModel = "lock=lease,storage=fenced-register"

// Expect is the verdict "histcheck check" gives the run's history.
func (r RedlockResult) Expect() string { return verdictOf(r.Fenced && !r.ClockJump) }

// RedlockModel is how the Redlock history is checked: the clients' holding
// periods as a mutex (a client holds from its acquire to its release, as it
// believes), the storage as a register that refuses stale tokens.
const RedlockModel = "lock=mutex,storage=fenced-register"

// shows says what the run's table shows and how its history is judged.
func (r RedlockResult) shows() string {
	if r.ClockJump {
		return r.clockJumpShows()
	}
	if r.Fenced {
		return fmt.Sprintf("A's keys expired during its pause and B gathered a majority, so A and B both acted as holders from %d to %d ms. ", r.Overlap[0], r.Overlap[1]) +
			"With a monotonic token checked by the storage, A's late write with token 1 is refused; " +
			"checked as the 10 s lease Redlock promises and a fenced register, the history passes."
	}
	s := fmt.Sprintf("A's keys expired during its pause and B gathered a majority, so A and B both acted as holders from %d to %d ms. ",
		r.Overlap[0], r.Overlap[1])
	if r.Monotonic {
		return s + "Checked with the mutex model for the holding periods and the fenced-register model for the storage, the history is false twice over: " +
			"B acquired while A never let go, and the storage took A's write with token 1 after B's with token 2."
	}
	return s + "Redlock's random values are not ordered, so the storage cannot tell A's write is stale and its fenced-register check passes; " +
		"the mutex check of the holding periods is what flags the run: B acquired while A, whose release found nothing, still acted."
}

func redlockScenario() Scenario {
	flags := []Flag{
		{Name: "token", Default: "none", Usage: "none (Redlock's random values only) or monotonic (a fencing token is added)"},
		{Name: "fencing", Default: "off", Usage: "on: the storage refuses tokens lower than one it accepted (implies --token monotonic)"},
		{Name: "clock-jump", Default: "off", Usage: "on: instead of a pause, one master's clock jumps and expires A's key there early"},
		{Name: "seed", Default: fmt.Sprint(RedlockSeed), Usage: "generator seed for the random values"},
	}
	return Scenario{
		Name:        "redlock",
		Description: "Redlock on five masters: a paused client and a new holder write at the same time",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			tok, err := parseChoice("token", v["token"], "none", "monotonic")
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			fencing, err := parseChoice("fencing", v["fencing"], "on", "off")
			if err != nil {
				return nil, err
			}
			jump, err := parseChoice("clock-jump", v["clock-jump"], "on", "off")
			if err != nil {
				return nil, err
			}
			if fencing == "on" {
				v["token"] = "monotonic"
			}
			var res RedlockResult
			switch {
			case jump == "on":
				res = RedlockClockJump(v["token"] == "monotonic", fencing == "on", seed)
			case fencing == "on":
				res = RedlockFenced(seed)
			default:
				res = Redlock(tok == "monotonic", seed)
			}
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			out := &Output{Table: closing(res.Table(), res.shows(), "redlock", flags, v, res.Expect()), History: h, Model: RedlockModel,
				Expect: res.Expect()}
			if res.Fenced {
				out.Model, out.Options.TTL = RedlockFencedModel, redlockTTL
			}
			return out, nil
		},
	}
}
