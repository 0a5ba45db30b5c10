package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// PACELCParams describe the regions of the PACELC example.
type PACELCParams struct {
	Regions []string
	// RTT[i][j] is the round trip between regions i and j in ms.
	RTT          [][]float64
	Local        float64   // ms for a read served by the own replica
	Shares       []float64 // users near each region, in percent
	ReadsPerPage int
}

// DefaultPACELC is the chapter's setting: X–Y 30 ms, Y–Z 60 ms, X–Z 80 ms,
// 1 ms local reads, users 50/30/20 % near X/Y/Z, five reads per page.
func DefaultPACELC() PACELCParams {
	return PACELCParams{
		Regions:      []string{"X", "Y", "Z"},
		RTT:          [][]float64{{0, 30, 80}, {30, 0, 60}, {80, 60, 0}},
		Local:        1,
		Shares:       []float64{50, 30, 20},
		ReadsPerPage: 5,
	}
}

// PACELCResult is the latency of a linearizable read (own replica plus the
// nearest other one: 2 of 3) near each region, on average and per page.
type PACELCResult struct {
	Params           PACELCParams
	Linearizable     []float64 // ms, per region
	Average          float64   // ms, weighted by the users' shares
	PageLinearizable float64   // ms for ReadsPerPage linearizable reads
	PageLocal        float64   // ms for ReadsPerPage local reads
}

// PACELC computes the table; it fails on inconsistent parameters.
func PACELC(p PACELCParams) (PACELCResult, error) {
	n := len(p.Regions)
	if n < 2 {
		return PACELCResult{}, errors.New("pacelc: need at least two regions")
	}
	if len(p.RTT) != n || len(p.Shares) != n {
		return PACELCResult{}, fmt.Errorf("pacelc: %d regions need a %d×%d round-trip matrix and %d shares", n, n, n, n)
	}
	var total float64
	for _, s := range p.Shares {
		if s < 0 {
			return PACELCResult{}, fmt.Errorf("pacelc: negative user share %g", s)
		}
		total += s
	}
	if total <= 0 {
		return PACELCResult{}, errors.New("pacelc: user shares sum to zero")
	}
	if p.ReadsPerPage < 0 || p.Local < 0 {
		return PACELCResult{}, errors.New("pacelc: reads per page and local read time must not be negative")
	}
	res := PACELCResult{Params: p, Linearizable: make([]float64, n)}
	for i := range p.Regions {
		if len(p.RTT[i]) != n {
			return PACELCResult{}, fmt.Errorf("pacelc: round-trip row %d has %d entries, want %d", i+1, len(p.RTT[i]), n)
		}
		nearest := math.Inf(1)
		for j, rtt := range p.RTT[i] {
			if j != i {
				nearest = math.Min(nearest, rtt)
			}
		}
		res.Linearizable[i] = p.Local + nearest
		res.Average += p.Shares[i] / total * res.Linearizable[i]
	}
	res.PageLinearizable = float64(p.ReadsPerPage) * res.Average
	res.PageLocal = float64(p.ReadsPerPage) * p.Local
	return res, nil
}

// ms writes a latency, rounded to 0.1 ms, without needless decimals.
func ms(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) + " ms"
}

// Table renders the latency table and the per-page cost.
func (r PACELCResult) Table() string {
	var rows [][]string
	for i, name := range r.Params.Regions {
		rows = append(rows, []string{name, strconv.FormatFloat(r.Params.Shares[i], 'f', -1, 64) + "%", ms(r.Linearizable[i]), ms(r.Params.Local)})
	}
	rows = append(rows, []string{"average", "", ms(r.Average), ms(r.Params.Local)})
	return mdTable([]string{"users near", "share", "linearizable read", "local read"}, rows) +
		fmt.Sprintf("\n%d such reads on one page cost %s instead of %s.\n", r.Params.ReadsPerPage, ms(r.PageLinearizable), ms(r.PageLocal))
}

// PACELCHistory is one page view in each region after a write, as a
// register history starting at 0, times in whole ms (latencies rounded up):
// a user near the first region writes 1, then a user near each region reads
// ReadsPerPage times. With linearizable reads (local false) the write
// commits on its own replica and the nearest other one, and every read asks
// two replicas: the reads are slow and all return 1, and the history is
// linearizable. With local reads (local true, the "else latency" choice) the
// write returns once its own replica has it and reaches each other replica
// half a round trip later; a read is served by the reader's own replica at
// once and returns 0 until the write has arrived there: stale reads, and a
// history that is not linearizable (unless no read comes early enough).
// stale counts the reads that returned 0 after the write had returned.
func PACELCHistory(r PACELCResult, local bool) (h *history.History, stale int, err error) {
	p := r.Params
	up := func(x float64) int64 { return int64(math.Ceil(x)) }
	nearest := func(i int) float64 {
		best := math.Inf(1)
		for j, rtt := range p.RTT[i] {
			if j != i {
				best = math.Min(best, rtt)
			}
		}
		return best
	}
	w := op("near-"+p.Regions[0], "write", history.Value{}, history.IntValue(1), 0, max(1, up(p.Local+nearest(0))), history.OK)
	start := w.Return + 1
	if local {
		w.Return = max(1, up(p.Local))
		start = w.Return + 1
	}
	ops := []history.Op{w}
	for i, name := range p.Regions {
		t := start
		for k := 0; k < p.ReadsPerPage; k++ {
			lat := max(1, up(r.Linearizable[i]))
			got := int64(1)
			if local {
				lat = max(1, up(p.Local))
				if arrives := up(p.Local + p.RTT[0][i]/2); i != 0 && t < arrives {
					got = 0
					stale++
				}
			}
			ops = append(ops, op("near-"+name, "read", history.Value{}, history.IntValue(got), t, t+lat, history.OK))
			t += lat + 1
		}
	}
	h, err = build("pacelc", ops, metaFor("register", history.IntValue(0)))
	return h, stale, err
}

func parseFloats(name, s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s: want %d comma-separated numbers, got %q", name, n, s)
	}
	out := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return nil, fmt.Errorf("%s: %q is not a non-negative number", name, p)
		}
		out[i] = f
	}
	return out, nil
}

func pacelcScenario() Scenario {
	flags := []Flag{
		{Name: "rtt", Default: "30,60,80", Usage: "round trips X–Y, Y–Z, X–Z in ms"},
		{Name: "shares", Default: "50,30,20", Usage: "users near X, Y, Z in percent"},
		{Name: "local", Default: "1", Usage: "a local read in ms"},
		{Name: "reads", Default: "5", Usage: "reads per page"},
		{Name: "read", Default: "linearizable", Usage: "how the history's reads are served: linearizable (own replica and the nearest other) or local (own replica only)"},
	}
	return Scenario{
		Name:        "pacelc",
		Description: "PACELC: the latency of linearizable reads across three regions without a partition",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			rtt, err := parseFloats("rtt", v["rtt"], 3)
			if err != nil {
				return nil, err
			}
			shares, err := parseFloats("shares", v["shares"], 3)
			if err != nil {
				return nil, err
			}
			local, err := parseFloats("local", v["local"], 1)
			if err != nil {
				return nil, err
			}
			reads, err := parseInt("reads", v["reads"], 0, 1_000_000)
			if err != nil {
				return nil, err
			}
			params := DefaultPACELC()
			xy, yz, xz := rtt[0], rtt[1], rtt[2]
			params.RTT = [][]float64{{0, xy, xz}, {xy, 0, yz}, {xz, yz, 0}}
			params.Shares, params.Local, params.ReadsPerPage = shares, local[0], reads
			res, err := PACELC(params)
			if err != nil {
				return nil, err
			}
			mode, err := parseChoice("read", v["read"], "linearizable", "local")
			if err != nil {
				return nil, err
			}
			h, stale, err := PACELCHistory(res, mode == "local")
			if err != nil {
				return nil, err
			}
			expect := "true"
			shows := "Without a partition, consistency still costs latency: a linearizable read waits for a second replica, a local one does not. " +
				"The history is one page view per region after a write, with linearizable reads: slower, and linearizable when checked as a register starting at 0."
			if mode == "local" {
				shows = fmt.Sprintf("Without a partition, consistency still costs latency: a linearizable read waits for a second replica, a local one does not. "+
					"The history is one page view per region after a write, with local reads: fast, but %d reads returned 0 after the write had returned", stale)
				if stale > 0 {
					expect = "false"
					shows += ", so checked as a register starting at 0 it is not linearizable."
				} else {
					shows += ", so checked as a register starting at 0 it is linearizable."
				}
			}
			return &Output{Table: closing(res.Table(), shows, "pacelc", flags, v, expect), History: h, Model: "register",
				Options: model.Options{Init: history.IntValue(0)}, Expect: expect}, nil
		},
	}
}
