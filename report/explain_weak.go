package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
)

// The words of the weak criteria's violations: causal consistency, causal
// memory and causal convergence (the bad patterns of Bouajjani et al.),
// PRAM and the session guarantees.

// causal tells a bad pattern of the causal criteria.
func (w *words) causal() string {
	v := w.v
	rd := v.Op
	switch v.Pattern {
	case "ThinAirRead":
		if w.cites(rd) {
			return fmt.Sprintf("%s returned %s at version %d, which is neither what the write of %s with that version wrote nor the initial value",
				w.label(rd), w.op(rd).Value, w.version(rd), w.keyName(rd))
		}
		return fmt.Sprintf("%s returned %s, which no write of %s wrote and which is not the initial value",
			w.label(rd), w.op(rd).Value, w.keyName(rd))
	case "CyclicCO":
		if rd == checker.None {
			return "these operations causally depend on each other in a cycle: " + w.causalCycle()
		}
		return fmt.Sprintf("the causal past of %s cannot be ordered with the writes' versions: %s", w.label(rd), w.causalCycle())
	case "CyclicCF":
		return "no single order of the writes explains every read: " + w.causalCycle()
	case "CyclicHB":
		return fmt.Sprintf("process %s cannot order what it has seen: %s", w.client(v.Session), w.causalCycle())
	case "WriteCOInitRead":
		return fmt.Sprintf("%s returned the initial value of %s although %s precedes it causally: %s",
			w.label(rd), w.keyName(rd), w.label(v.Newer), w.causalPath(v.Steps))
	case "WriteHBInitRead":
		return fmt.Sprintf("%s returned the initial value of %s although %s precedes it in %s's view: %s",
			w.label(rd), w.keyName(rd), w.label(v.Newer), w.client(rd), w.causalPath(v.Steps))
	}
	return w.writeCORead()
}

// writeCORead tells a read of a write that a newer one, in the read's
// causal past, replaced: newer by the causal order (the steps run from the
// write read through the newer write to the read) or by the versions (the
// first step says the newer version is newer).
func (w *words) writeCORead() string {
	v := w.v
	rd, w1, w2 := v.Op, v.Source, v.Newer
	if len(v.Steps) > 0 && v.Steps[0].Rel == checker.RelVersion {
		return fmt.Sprintf("%s returned the value of %s (version %d) although %s, version %d, precedes it causally: %s",
			w.label(rd), w.label(w1), w.version(w1), w.label(w2), w.version(w2), w.causalPath(v.Steps[1:]))
	}
	split := len(v.Steps)
	for i, s := range v.Steps {
		if s.To == w2 {
			split = i + 1
			break
		}
	}
	return fmt.Sprintf("%s returned the value of %s although %s overwrote it in the read's causal past: %s; %s",
		w.label(rd), w.label(w1), w.label(w2), w.causalPath(v.Steps[:split]), w.causalPath(v.Steps[split:]))
}

// causalPath tells a chain of causal steps, one sentence per step.
func (w *words) causalPath(steps []checker.Step) string {
	return strings.Join(w.causalSteps(steps), ", and ")
}

// causalCycle tells a cycle of causal steps.
func (w *words) causalCycle() string {
	return strings.Join(w.causalSteps(w.v.Steps), "; ") + w.cycleEnd("; so %s precedes itself")
}

// causalSteps writes one sentence per step, a run of steps in process
// order counting as one.
func (w *words) causalSteps(steps []checker.Step) []string {
	var out []string
	for i := 0; i < len(steps); i++ {
		s := steps[i]
		a, b := s.From, s.To
		switch s.Rel {
		case checker.RelProcess:
			j := i
			for j+1 < len(steps) && steps[j+1].Rel == checker.RelProcess {
				j++
			}
			out = append(out, fmt.Sprintf("%s precedes %s in process %s's order", w.label(a), w.label(steps[j].To), w.client(a)))
			i = j
		case checker.RelReadsFrom:
			out = append(out, fmt.Sprintf("%s read the value %s wrote, so the write precedes the read causally", w.label(b), w.label(a)))
		case checker.RelBeforeSource:
			out = append(out, w.beforeSource(s))
		case checker.RelVersion:
			out = append(out, fmt.Sprintf("%s has version %d, older than %s's version %d, so it takes effect first",
				w.label(a), w.version(a), w.label(b), w.version(b)))
		}
	}
	return out
}

// beforeSource tells why a write comes before another that a read
// returned: causal convergence orders them so because the read's causal
// past holds the first, causal memory because the reader's view does.
func (w *words) beforeSource(s checker.Step) string {
	a, b, rd := w.label(s.From), w.label(s.To), w.label(s.Via)
	if w.v.Pattern == "CyclicCF" {
		return fmt.Sprintf("%s read %s although %s precedes it causally, so %s must be ordered before %s", rd, b, a, a, b)
	}
	c := w.client(s.Via)
	return fmt.Sprintf("%s read %s although %s precedes it in %s's view, so %s must see %s before %s", rd, b, a, c, c, a, b)
}

// guarantee tells a violation of a session guarantee: a read of a write
// its own process issued later, a read older than what its session knew,
// or a cycle of the write order every session shares.
func (w *words) guarantee() string {
	v := w.v
	rd := v.Op
	switch {
	case rd == checker.None:
		parts := stepsOf(v.Steps, w.segment)
		return "no single order of the writes, shared by every session, explains these reads: " +
			strings.Join(parts, "; ") + w.cycleEnd("; so %s would be older than itself")
	case len(v.Steps) == 0:
		return fmt.Sprintf("%s read the value of %s, which its own process issued only afterwards, so that write would follow itself",
			w.label(rd), w.label(v.Source))
	}
	s := v.Steps[0]
	if w.cites(rd) {
		return fmt.Sprintf("%s; then %s returned version %d of %s, older than %s's version %d",
			w.knew(s), w.label(rd), w.version(rd), w.keyName(rd), w.label(s.From), w.version(s.From))
	}
	return fmt.Sprintf("%s; then %s returned the initial value of %s, as if %s had not happened",
		w.knew(s), w.label(rd), w.keyName(rd), w.label(s.From))
}

// knew says how a session knew a write (a RelKnown step): the session is
// the process of the read that later returned another write, or of the
// step's end.
func (w *words) knew(s checker.Step) string {
	session := s.To
	if s.Via != checker.None {
		session = s.Via
	}
	if s.Seen == checker.None {
		return fmt.Sprintf("%s wrote %s itself", w.client(session), w.label(s.From))
	}
	return fmt.Sprintf("%s had read %s with %s", w.client(session), w.label(s.From), w.label(s.Seen))
}

// segment tells one step of the shared write order's cycle.
func (w *words) segment(s checker.Step) string {
	a, b := w.label(s.From), w.label(s.To)
	switch s.Rel {
	case checker.RelVersion:
		return fmt.Sprintf("%s has version %d, older than %s's version %d", a, w.version(s.From), b, w.version(s.To))
	case checker.RelProcess:
		return fmt.Sprintf("%s precedes %s in process %s's order, and monotonic writes keeps that order", a, b, w.client(s.From))
	case checker.RelIssued:
		return fmt.Sprintf("%s read %s before it issued %s, so %s is older than %s", w.client(s.Via), a, b, a, b)
	case checker.RelKnown:
		text := w.knew(s)
		if s.Via != checker.None {
			text += fmt.Sprintf(", and later %s returned %s, so %s is older than %s", w.label(s.Via), b, a, b)
		}
		return text
	}
	return ""
}

// pram tells a cycle of a session's view under PRAM.
func (w *words) pram() string {
	parts := stepsOf(w.v.Steps, w.viewStep)
	return fmt.Sprintf("session %s has no view of the writes that keeps every session's order: %s",
		w.client(w.v.Session), strings.Join(parts, "; ")) + w.cycleEnd("; so %s would precede itself")
}

// viewStep tells one step of a PRAM view.
func (w *words) viewStep(s checker.Step) string {
	a, b := w.label(s.From), w.label(s.To)
	switch s.Rel {
	case checker.RelBeforeSource:
		c := w.client(s.Via)
		return fmt.Sprintf("%s returned %s although %s comes before it in %s's view, so %s must come before %s",
			w.label(s.Via), b, a, c, a, b)
	case checker.RelReplaced:
		if s.Source == checker.Initial {
			return fmt.Sprintf("%s returned the initial value of %s, so it comes before %s", a, w.keyName(s.From), b)
		}
		return fmt.Sprintf("%s returned %s and %s comes after that write in %s's view, so the read must come before %s",
			a, w.label(s.Source), b, w.client(s.From), b)
	case checker.RelReadsFrom:
		return fmt.Sprintf("%s read the value %s wrote", b, a)
	case checker.RelProcess:
		return fmt.Sprintf("%s precedes %s in process %s's order", a, b, w.client(s.From))
	case checker.RelVersion:
		return fmt.Sprintf("%s has version %d, older than %s's version %d", a, w.version(s.From), b, w.version(s.To))
	}
	return fmt.Sprintf("%s comes before %s", a, b)
}
