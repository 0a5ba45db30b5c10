package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The SETNX-then-EXPIRE scenario's setting.
const (
	setnxTTL      = 30_000  // ms: the lease the lock is meant to have
	setnxOperator = 600_000 // ms: when an operator deletes the stuck key
)

// setnxAttempts are when B tries to take the lock (ms).
var setnxAttempts = []int64{35_000, 60_000, 120_000, 300_000}

// SetnxResult is one run of the SETNX-then-EXPIRE scenario.
type SetnxResult struct {
	Command string // "setnx+expire" or "set-nx-px"
	tl      timeline
	// Failed counts B's acquires refused while nobody worked under the lock.
	Failed int
	// Stuck is set when the lock never expired and had to be deleted by hand.
	Stuck bool
}

// Setnx runs the old two-command pattern against SET NX PX: A takes the
// lock meaning to hold it for at most 30 s, and crashes right after. With
// SETNX then EXPIRE the crash falls between the two commands, so the key
// never expires: B's attempts at 35 s, 60 s, 2 min and 5 min all fail, and
// the lock is free again only when an operator deletes the key by hand at
// 10 min, a release by someone who never held it. SET NX PX 30000 takes
// the lock and sets its expiry in one command: the key is gone at 30 s and
// B's first attempt succeeds.
func Setnx(command string) SetnxResult {
	res := SetnxResult{Command: command}
	t := &res.tl
	if command == "setnx+expire" {
		t.add(lockOp("A", "acquire", 0, 0, 1, history.OK), "A: `SETNX lock A` → 1, A holds the lock")
		t.note(1000, "A", "A crashes before it sends `EXPIRE lock 30`: the key has no expiry")
	} else {
		t.add(lockOp("A", "acquire", 0, 0, 1, history.OK), "A: `SET lock A NX PX 30000` → OK, A holds the lock until 30 s")
		t.note(1000, "A", "A crashes")
		t.note(setnxTTL, "", "the key expires")
	}
	expired := command != "setnx+expire"
	for _, at := range setnxAttempts {
		if expired {
			t.add(lockOp("B", "acquire", 0, at, at+1, history.OK), "B: `SET lock B NX PX 30000` → OK, B holds the lock")
			t.add(lockOp("B", "release", 0, at+5000, at+5001, history.OK), "B finishes its job and releases the lock")
			return res
		}
		res.Failed++
		t.add(lockOp("B", "acquire", 0, at, at+1, history.Fail), "B: `SET lock B NX PX 30000` → nil: the key is still there, with no expiry (`PTTL lock` → -1)")
	}
	res.Stuck = true
	t.add(lockOp("ops", "release", 0, setnxOperator, setnxOperator+1, history.OK), "an operator deletes the stuck key: `DEL lock` → 1")
	at := int64(setnxOperator + 5000)
	t.add(lockOp("B", "acquire", 0, at, at+1, history.OK), "B: `SET lock B NX PX 30000` → OK, B holds the lock")
	t.add(lockOp("B", "release", 0, at+5000, at+5001, history.OK), "B finishes its job and releases the lock")
	return res
}

// Table renders the timeline.
func (r SetnxResult) Table() string {
	var sb strings.Builder
	if r.Command == "setnx+expire" {
		sb.WriteString("SETNX, then EXPIRE (two commands), a crash in between:\n\n")
	} else {
		sb.WriteString("SET NX PX (one command), a crash after it:\n\n")
	}
	sb.WriteString(r.tl.table())
	if r.Stuck {
		fmt.Fprintf(&sb, "\nThe lock never expired: B failed %d times while nobody worked under it, until someone deleted it by hand.\n", r.Failed)
	} else {
		sb.WriteString("\nThe lock expired 30 s after A took it, and B took it at its first attempt.\n")
	}
	return sb.String()
}

// History returns the run as a lock history on key "lock" (B's refused
// attempts fail; the operator's DEL is a release by client "ops"), checked
// as the lease the lock was meant to be, 30 s.
func (r SetnxResult) History() (*history.History, error) {
	return build("setnx-expire", append([]history.Op(nil), r.tl.ops...), metaTTL("lease", history.Value{}, setnxTTL))
}

func (r SetnxResult) shows() string {
	if r.Stuck {
		return "A crash between SETNX and EXPIRE leaves a lock that never expires, so every later acquire fails; the only way out is a DEL by hand. " +
			"Checked as the 30 s lease the lock was meant to be, the history fails: the lock was freed by a release from a client that never held it. " +
			"The refused acquires themselves are failed operations, which no linearizability check can blame."
	}
	return "SET NX PX takes the lock and sets its expiry in one command, so a crash cannot leave the lock without one: it expires at 30 s and B takes it. " +
		"Checked as a 30 s lease, the history passes."
}

func setnxScenario() Scenario {
	flags := []Flag{{Name: "command", Default: "setnx+expire",
		Usage: "setnx+expire (two commands, the old pattern) or set-nx-px (one command: SET NX PX)"}}
	return Scenario{
		Name:        "setnx-expire",
		Description: "a crash between SETNX and EXPIRE leaves a lock nobody can take again; SET NX PX does both at once",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			command, err := parseChoice("command", v["command"], "setnx+expire", "set-nx-px")
			if err != nil {
				return nil, err
			}
			res := Setnx(command)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := verdictOf(!res.Stuck)
			return &Output{Table: closing(res.Table(), res.shows(), "setnx-expire", flags, v, expect), History: h, Model: "lease",
				Options: model.Options{TTL: setnxTTL}, Expect: expect}, nil
		},
	}
}
