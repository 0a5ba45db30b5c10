package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// The clock-jump story's setting.
const (
	redlockJumpAt     = 1000   // ms: M3's clock jumps forward
	redlockJumpBy     = 10_000 // ms
	redlockJumpMaster = 2      // M3, counted from 0
)

// RedlockClockJump runs Redlock's majority rule with a clock jump on one
// master. C tries first but reaches only M4 and M5 (2 of 5, no majority):
// it releases the keys it did set, as it must. A reaches M1, M2 and M3
// (M4 and M5 do not answer it in time): 3 of 5, a lock. At 1 s M3's clock
// jumps 10 s forward and A's key there expires early; at 1.5 s B sets the
// key on M3, M4 and M5 (3 of 5) while A, its validity still running,
// believes it holds the lock: two holders, which no random value can fence.
// With monotonic, tokens come from a counter; with fenced, the storage
// refuses a token lower than one it has accepted.
func RedlockClockJump(monotonic, fenced bool, seed uint32) RedlockResult {
	g := NewMulberry32(seed)
	res := RedlockResult{Monotonic: monotonic || fenced, Fenced: fenced, ClockJump: true, Validity: map[string]int64{}}
	masters := make([]redisKey, redlockMasters)
	var offset [redlockMasters]int64 // each master's clock minus real time
	lockKey, storeKey := history.StringValue("lock"), history.StringValue("storage")
	step := func(from, to int64, format string, args ...any) {
		res.Steps = append(res.Steps, RedlockStep{From: from, To: to, Event: fmt.Sprintf(format, args...)})
	}
	values := map[string]string{}
	tokens := map[string]int64{}
	var lastToken, highest int64
	acquire := func(client string, at int64, reach []int) {
		values[client] = fmt.Sprintf("%08x%08x", g.Uint32(), g.Uint32())
		t := at
		var got []int
		var names []string
		for _, i := range reach {
			t += redlockRTT
			if masters[i].setNX(values[client], t+offset[i], redlockTTL) {
				got = append(got, i)
				names = append(names, fmt.Sprintf("M%d", i+1))
			}
		}
		elapsed := t - at
		validity := int64(redlockTTL) - elapsed - redlockDrift
		o := op(client, "acquire", lockKey, history.StringValue(values[client]), at, t, history.OK)
		if 2*len(got) <= redlockMasters || validity <= 0 {
			o.Status = history.Fail
			step(at, t, "%s sets the key on %s (%d of %d): no majority, no lock", client, strings.Join(names, ", "), len(got), redlockMasters)
			// A failed attempt must release the keys it did set, or they
			// block others until they expire.
			for _, i := range got {
				masters[i].compareAndDelete(values[client], t+offset[i])
			}
			step(t, t+redlockRTT*int64(len(got)), "%s releases the keys it did set, on %s", client, strings.Join(names, ", "))
			res.ops = append(res.ops, o)
			return
		}
		res.Validity[client] = validity
		lastToken++
		tokens[client] = lastToken
		if res.Monotonic {
			o.Token = history.IntValue(lastToken)
		}
		step(at, t, "%s sets the key on %s (%d of %d) in %d ms: valid for %d ms (TTL %d − %d elapsed − %d drift), until %d",
			client, strings.Join(names, ", "), len(got), redlockMasters, elapsed, validity, redlockTTL, elapsed, redlockDrift, t+validity)
		res.ops = append(res.ops, o)
	}
	write := func(client string, at int64) {
		o := op(client, "write", storeKey, history.StringValue(client), at, at+10, history.OK)
		tok, why := "", ""
		if res.Monotonic {
			o.Token = history.IntValue(tokens[client])
			tok = fmt.Sprintf(" with token %d", tokens[client])
		}
		if fenced && tokens[client] < highest {
			o.Status = history.Fail
			why = fmt.Sprintf(": refused, the storage has accepted token %d", highest)
		}
		highest = max(highest, tokens[client])
		res.ops = append(res.ops, o)
		step(at, at+10, "%s writes to the storage%s%s", client, tok, why)
	}
	release := func(client string, at int64) {
		t, deleted := at, 0
		for i := range masters {
			t += redlockRTT
			if masters[i].compareAndDelete(values[client], t+offset[i]) {
				deleted++
			}
		}
		o := op(client, "release", lockKey, history.StringValue(values[client]), at, t, history.Fail)
		if deleted > 0 {
			o.Status = history.OK
		}
		if res.Monotonic {
			o.Token = history.IntValue(tokens[client])
		}
		res.ops = append(res.ops, o)
		step(at, t, "%s releases: its value is on %d of %d masters", client, deleted, redlockMasters)
	}

	acquire("C", 0, []int{3, 4})
	acquire("A", 100, []int{0, 1, 2})
	offset[redlockJumpMaster] = redlockJumpBy
	step(redlockJumpAt, redlockJumpAt, "M%d's clock jumps %d ms forward: A's key there expires early", redlockJumpMaster+1, redlockJumpBy)
	acquire("B", 1500, []int{0, 1, 2, 3, 4})
	res.Overlap[0] = res.ops[len(res.ops)-1].Return
	write("B", 2000)
	write("A", 3000)
	res.Overlap[1] = 4000
	release("A", 4000)
	release("B", 5000)
	return res
}

func (r RedlockResult) clockJumpTable() string {
	var rows [][]string
	for _, s := range r.Steps {
		at := fmt.Sprint(s.From)
		if s.To != s.From {
			at = fmt.Sprintf("%d–%d", s.From, s.To)
		}
		rows = append(rows, []string{at, s.Event})
	}
	var sb strings.Builder
	sb.WriteString("Redlock with a clock jump on one master")
	switch {
	case r.Fenced:
		sb.WriteString(", a monotonic fencing token checked by the storage")
	case r.Monotonic:
		sb.WriteString(", a monotonic fencing token added")
	}
	sb.WriteString(":\n\n")
	sb.WriteString(mdTable([]string{"time (ms)", "event"}, rows))
	fmt.Fprintf(&sb, "\nA lock needs the key on at least %d of the %d masters: C's 2 were not enough, A's and B's 3 were. "+
		"A and B both held the lock from %d to %d ms.\n", redlockMasters/2+1, redlockMasters, r.Overlap[0], r.Overlap[1])
	return sb.String()
}

func (r RedlockResult) clockJumpShows() string {
	s := "A jump of one master's clock expired A's key early, so B gathered 3 of 5 masters while A's validity still ran: two holders at once, without any pause. "
	if r.Fenced {
		return s + "Fencing protects the storage (it refuses A's token 1 after 2), but checked as the 10 s lease Redlock promises, " +
			"the lock itself still fails: no token repairs a lock that was given twice."
	}
	return s + "Checked with the mutex model for the holding periods, the history fails: B acquired while A held the lock."
}
