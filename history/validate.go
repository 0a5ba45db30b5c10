package history

import "fmt"

// Validate checks the invariants that Pair and FromOps establish and that
// checkers rely on: operations sorted by call, each with a known status
// and Call <= Return (Return = Infinity exactly when the outcome is
// unknown), logical processes numbered 0, 1, … in order of first call,
// each belonging to one client and running one operation at a time, with an
// operation of unknown outcome only as its last. It is meant for histories
// built or changed by hand; an error names the first operation at fault.
func (h *History) Validate() error {
	if h.Processes < 0 || h.Clients < 0 || h.Clients > h.Processes || h.Processes > len(h.Ops) {
		return fmt.Errorf("history has %d processes and %d clients for %d operations", h.Processes, h.Clients, len(h.Ops))
	}
	type proc struct {
		client string
		last   int // index in Ops of the process's latest operation
	}
	procs := make([]proc, 0, h.Processes)
	clients := map[string]bool{}
	for i := range h.Ops {
		o := &h.Ops[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("operation %d (%s): %s", i, o.Label(), fmt.Sprintf(format, args...))
		}
		switch {
		case o.Client == "":
			return bad("no client")
		case o.Status != OK && o.Status != Fail && o.Status != Info:
			return bad("status %s", o.Status)
		case (o.Status == Info) != (o.Return == Infinity):
			return bad("status %s with return %d", o.Status, o.Return)
		case o.Call == Infinity || o.Return < o.Call:
			return bad("call %d, return %d", o.Call, o.Return)
		case i > 0 && o.Call < h.Ops[i-1].Call:
			return bad("call %d before the previous operation's call %d", o.Call, h.Ops[i-1].Call)
		case o.Process < 0 || o.Process > len(procs):
			return bad("process %d where at most %d was expected (processes are numbered by first call)", o.Process, len(procs))
		}
		clients[o.Client] = true
		if o.Process == len(procs) {
			procs = append(procs, proc{client: o.Client, last: i})
			continue
		}
		p := &procs[o.Process]
		prev := &h.Ops[p.last]
		switch {
		case p.client != o.Client:
			return bad("process %d belongs to client %s and to %s", o.Process, Quote(p.client), Quote(o.Client))
		case o.Call < prev.Return:
			return bad("process %d runs it while operation %d (%s) is open", o.Process, p.last, prev.Label())
		}
		p.last = i
	}
	if len(procs) != h.Processes || len(clients) != h.Clients {
		return fmt.Errorf("history says %d processes and %d clients; its operations have %d and %d", h.Processes, h.Clients, len(procs), len(clients))
	}
	return nil
}
