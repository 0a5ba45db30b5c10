package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The election scenario's setting: three schedulers, a 6 s session.
const (
	electionSession   = 6000  // ms
	electionHeartbeat = 2000  // ms between the leader's heartbeats
	electionCut       = 9000  // ms: the network between S1 and the ensemble is cut
	electionHeal      = 20000 // ms: the network heals; S1 learns its session expired
	electionJobEvery  = 2000  // ms between a leader's jobs
)

// ElectionModel is how the election history is checked: leadership as a
// lease with the session timeout, the jobs' storage as a register that
// refuses stale tokens.
const ElectionModel = "lock=lease,jobs=fenced-register"

// ElectionResult is one run of the election scenario.
type ElectionResult struct {
	Remedy string // none, fencing or step-down
	tl     timeline
	// Overlap is when two leaders acted, [from, to) in ms; zero when never.
	Overlap [2]int64
	// Rejected counts the old leader's jobs refused by fenced storage.
	Rejected int
}

// Election runs leader election through a coordination service with a 6 s
// session timeout. S1 leads (token 1) and heartbeats every 2 s; at 9 s the
// network between S1 and the ensemble is cut. The ensemble hears nothing
// after S1's heartbeat at 8 s and ends the session at 14 s, on its own
// clock; S2, watching, becomes leader (token 2). S1 decides on its own
// clock whether to stop: without a remedy it goes on until the network
// heals at 20 s and it learns its session expired, so two leaders run
// jobs. With step-down S1 stops leading once it has not heard the ensemble
// for two thirds of the session (at 12 s); with fencing the jobs' storage
// refuses tokens lower than one it has accepted.
func Election(remedy string) ElectionResult {
	res := ElectionResult{Remedy: remedy}
	t := &res.tl
	fenced := remedy == "fencing"
	var highest int64
	job := func(who string, at, token int64) {
		v := history.StringValue(fmt.Sprintf("%s@%s", who, secs(at)))
		o := storeOp(who, "write", "jobs", v, token, at, at+10, history.OK)
		if fenced && token < highest {
			o.Status = history.Fail
			res.Rejected++
			t.add(o, "%s runs a job with token %d: refused, the storage has accepted token %d", who, token, highest)
			return
		}
		highest = max(highest, token)
		t.add(o, "%s runs a job with token %d", who, token)
	}
	t.add(lockOp("S1", "acquire", 1, 0, 10, history.OK), "S1 creates the leader node (token 1) and leads; session timeout %s s", secs(electionSession))
	t.add(lockOp("S2", "acquire", 0, 20, 30, history.Fail), "S2 finds the node taken and watches it")
	t.add(lockOp("S3", "acquire", 0, 40, 50, history.Fail), "S3 finds the node taken and watches it")
	lastHeard := int64(0)
	s1Stops := int64(electionHeal)
	if remedy == "step-down" {
		s1Stops = 0 // set once the cut is known
	}
	newLeader := int64(0)
	for at := int64(1000); at < electionHeal+1; at += 1000 {
		if at%electionHeartbeat == 0 {
			if at < electionCut {
				t.add(lockOp("S1", "renew", 0, at, at+10, history.OK), "S1's heartbeat renews its session")
				lastHeard = at
			} else if at < s1Stops || s1Stops == 0 {
				t.add(lockOp("S1", "renew", 0, at, at+10, history.Fail), "S1's heartbeat gets no answer")
			}
		}
		if at == electionCut {
			t.note(at, "", "the network between S1 and the ensemble is cut")
		}
		if remedy == "step-down" && s1Stops == 0 && at >= lastHeard+electionSession*2/3 && at > electionCut {
			s1Stops = at
			t.note(at, "S1", "S1 has not heard the ensemble for %s s (two thirds of the session) and stops leading", secs(at-lastHeard))
		}
		if newLeader == 0 && at >= lastHeard+electionSession {
			newLeader = at
			t.note(at, "", "the ensemble ends S1's session (last heartbeat at %s s) and deletes its node", secs(lastHeard))
			t.add(lockOp("S2", "acquire", 2, at+100, at+110, history.OK), "S2 creates the leader node (token 2) and leads")
		}
		// Jobs: S1 on odd seconds while it believes it leads, S2 on even
		// seconds once it leads.
		if (at/1000)%2 == 1 && (at < s1Stops || s1Stops == 0) {
			job("S1", at, 1)
		}
		if newLeader > 0 && at > newLeader && (at/1000)%2 == 0 {
			job("S2", at+200, 2)
		}
		if at == electionHeal && remedy != "step-down" {
			t.note(at, "S1", "the network heals; S1 learns its session expired and stops leading")
		}
	}
	if remedy != "step-down" {
		res.Overlap = [2]int64{newLeader + 110, s1Stops}
	}
	return res
}

// Table renders the timeline and who led when.
func (r ElectionResult) Table() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Leader election, session timeout %s s, remedy %s:\n\n", secs(electionSession), r.Remedy)
	sb.WriteString(r.tl.table())
	if r.Overlap[1] > r.Overlap[0] {
		fmt.Fprintf(&sb, "\nTwo leaders acted from %s s to %s s", secs(r.Overlap[0]), secs(r.Overlap[1]))
		if r.Rejected > 0 {
			fmt.Fprintf(&sb, "; the storage refused the old leader's %d jobs", r.Rejected)
		}
		sb.WriteString(".\n")
	} else {
		sb.WriteString("\nOne leader at a time: S1 stopped before the ensemble let S2 lead.\n")
	}
	return sb.String()
}

// History returns the run: leadership on key "lock" (acquire with the
// token, heartbeats as renews, failed ones failing) and the jobs on key
// "jobs", each a write carrying its leader's token.
func (r ElectionResult) History() (*history.History, error) {
	return build("election", append([]history.Op(nil), r.tl.ops...), metaTTL(ElectionModel, history.Value{}, electionSession))
}

func (r ElectionResult) shows() string {
	s := "The ensemble ends a session on its own clock and the old leader decides on its own whether to stop; until it does, two leaders act " +
		"(Kubernetes controllers elect with a Lease object of about 15 s and face the same gap). "
	switch r.Remedy {
	case "fencing":
		return s + "With fencing the storage refuses the old leader's token 1 once it has accepted 2, and the check (lease with the 6 s session, fenced register) passes."
	case "step-down":
		return s + "With step-down the old leader stops after two thirds of the session without an answer, before anyone else can lead, and the check passes."
	}
	return s + "Leadership passes the lease check, but the storage took the old leader's jobs with token 1 after the new leader's with 2, so the fenced-register check fails."
}

func electionScenario() Scenario {
	flags := []Flag{{Name: "remedy", Default: "none",
		Usage: "none, fencing (the storage refuses stale tokens) or step-down (the leader stops after 2/3 of the session without an answer)"}}
	return Scenario{
		Name:        "election",
		Description: "leader election with a 6 s session under a partition: two leaders act until the old one stops",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			remedy, err := parseChoice("remedy", v["remedy"], "none", "fencing", "step-down")
			if err != nil {
				return nil, err
			}
			res := Election(remedy)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := verdictOf(remedy != "none")
			return &Output{Table: closing(res.Table(), res.shows(), "election", flags, v, expect), History: h, Model: ElectionModel,
				Options: model.Options{TTL: electionSession}, Expect: expect}, nil
		},
	}
}
