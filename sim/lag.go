package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// LagSeed is the replica-lag scenario's seed in the chapter.
const LagSeed = 40

// LagRead is one read of the replica-lag scenario and the guarantees it broke.
type LagRead struct {
	T       int64  // ms
	Client  string // c1, c2, c3
	Replica string // A or B
	Got     int    // version returned
	Newest  int    // highest version whose write on A was strictly before T
	LIN     bool   // Got < Newest
	RYW     bool   // Got < the client's own last written version
	MR      bool   // Got < the highest version the client read before
}

// Broken lists the broken guarantees as the chapter writes them, "LIN, RYW".
func (r LagRead) Broken() string {
	var b []string
	if r.LIN {
		b = append(b, "LIN")
	}
	if r.RYW {
		b = append(b, "RYW")
	}
	if r.MR {
		b = append(b, "MR")
	}
	return strings.Join(b, ", ")
}

// LagOp is one operation of the scenario: a write of Version, or a read.
type LagOp struct {
	T       int64
	Client  string
	Write   bool
	Version int   // written, or read
	AtB     int64 // for a write: when replica B applied it
	Read    *LagRead
}

// LagResult is the outcome of the replica-lag simulation.
type LagResult struct {
	Ops           []LagOp
	Reads, Writes int
	LIN, RYW, MR  int // reads breaking each guarantee
}

// Lag simulates one register on two replicas: writes take effect on A at
// once and on B 20–99 ms later, one operation every 10 ms from 0 to 390 ms.
func Lag(seed uint32) LagResult {
	g := NewMulberry32(seed)
	type write struct {
		version int
		atA     int64
		atB     int64
	}
	var writes []write
	lastWritten := map[string]int{}
	lastRead := map[string]int{}
	var res LagResult
	for t := int64(0); t <= 390; t += 10 {
		client := fmt.Sprintf("c%d", 1+g.Intn(3))
		if g.Float64() < 0.4 {
			w := write{version: len(writes) + 1, atA: t, atB: t + 20 + int64(g.Intn(80))}
			writes = append(writes, w)
			lastWritten[client] = w.version
			res.Writes++
			res.Ops = append(res.Ops, LagOp{T: t, Client: client, Write: true, Version: w.version, AtB: w.atB})
			continue
		}
		r := LagRead{T: t, Client: client, Replica: "A"}
		if g.Float64() >= 0.5 {
			r.Replica = "B"
		}
		for _, w := range writes {
			applied := w.atA
			if r.Replica == "B" {
				applied = w.atB
			}
			if applied <= t && w.version > r.Got {
				r.Got = w.version
			}
			if w.atA < t && w.version > r.Newest {
				r.Newest = w.version
			}
		}
		r.LIN = r.Got < r.Newest
		r.RYW = r.Got < lastWritten[client]
		r.MR = r.Got < lastRead[client]
		lastRead[client] = max(lastRead[client], r.Got)
		res.Reads++
		if r.LIN {
			res.LIN++
		}
		if r.RYW {
			res.RYW++
		}
		if r.MR {
			res.MR++
		}
		res.Ops = append(res.Ops, LagOp{T: t, Client: client, Version: r.Got, Read: &r})
	}
	return res
}

// Violations returns the reads that broke at least one guarantee.
func (r LagResult) Violations() []LagRead {
	var out []LagRead
	for _, o := range r.Ops {
		if o.Read != nil && (o.Read.LIN || o.Read.RYW || o.Read.MR) {
			out = append(out, *o.Read)
		}
	}
	return out
}

// Table renders the summary line and the violating reads as the chapter does.
func (r LagResult) Table() string {
	var rows [][]string
	for _, v := range r.Violations() {
		rows = append(rows, []string{fmt.Sprint(v.T), v.Client, v.Replica, fmt.Sprint(v.Got), fmt.Sprint(v.Newest), v.Broken()})
	}
	return fmt.Sprintf("Result: %d reads; LIN broken %d, RYW broken %d, MR broken %d.\n\n", r.Reads, r.LIN, r.RYW, r.MR) +
		mdTable([]string{"t", "client", "replica", "got", "newest", "broken"}, rows)
}

// History returns the run as a register history: each operation spans
// [t, t+1] ms, a write writes its version number, and every operation
// carries its version explicitly (Op.Version) so that session checks can
// tell older from newer. The register starts at version 0.
func (r LagResult) History() (*history.History, error) {
	ops := make([]history.Op, 0, len(r.Ops))
	for _, o := range r.Ops {
		v := history.IntValue(int64(o.Version))
		f := "read"
		if o.Write {
			f = "write"
		}
		ops = append(ops, history.Op{Client: o.Client, F: f, Value: v, Version: v, Call: o.T, Return: o.T + 1, Status: history.OK})
	}
	return build("lag", ops, metaFor("register", history.IntValue(0)))
}

func lagScenario() Scenario {
	flags := []Flag{{Name: "seed", Default: fmt.Sprint(LagSeed), Usage: "generator seed"}}
	return Scenario{
		Name:        "lag",
		Description: "replica lag on one register: reads that break linearizability, read-your-writes, monotonic reads",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			res := Lag(seed)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			shows := fmt.Sprintf("Reads from replica B lag behind A: %d of %d reads missed a write that had already taken effect, "+
				"%d missed the reader's own write and %d went back in time. "+
				"Checked as a register starting at 0 the history is not linearizable; "+
				"\"histcheck check -c read-your-writes,monotonic-reads\" on it names the %d and %d reads one by one.",
				res.LIN, res.Reads, res.RYW, res.MR, res.RYW, res.MR)
			return &Output{Table: closing(res.Table(), shows, "lag", flags, v, "false"), History: h, Model: "register",
				Options: model.Options{Init: history.IntValue(0)}, Expect: "false"}, nil
		},
	}
}
