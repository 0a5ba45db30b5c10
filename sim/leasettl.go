package sim

import (
	"fmt"
	"math"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The lease-length scenario's setting.
const (
	LeaseSeed     = 4343
	leaseStalls   = 10_000
	leaseCrashes  = 1_000
	leaseHolders  = 10_000
	leaseTakeover = 0.3 // s a waiter needs to notice an expiry and take over
)

// leaseTTLs are the lease lengths the chapter compares, in seconds.
var leaseTTLs = []int{2, 10, 30}

// LeaseRow is one line of the lease-length table.
type LeaseRow struct {
	TTL           int     // s
	RenewEvery    float64 // s, TTL/3
	AvgRecovery   float64 // s, over the crashes
	WorstRecovery float64 // s
	FalseExpiries int     // stalls, of 10,000, that outlived the lease left
	KeepAlives    int64   // per second for 10,000 holders, rounded
}

// LeaseTTLResult is the lease-length table.
type LeaseTTLResult struct{ Rows []LeaseRow }

// leaseRun draws the stalls and then the crashes for one TTL. The chapter's
// figures come from a fresh generator per TTL, so that every TTL sees the
// same pauses.
func leaseRun(g *Mulberry32, stall func(length, phase float64), crash func(phase float64)) {
	for i := 0; i < leaseStalls; i++ {
		var length float64
		switch r := g.Float64(); {
		case r < 0.95:
			length = g.Float64() * 0.5
		case r < 0.995:
			length = 1 + g.Float64()*4
		default:
			length = 5 + g.Float64()*25
		}
		stall(length, g.Float64())
	}
	for i := 0; i < leaseCrashes; i++ {
		crash(g.Float64())
	}
}

// leaseLeft is the lease a holder has left when a stall starts at the given
// phase of its renewal period.
func leaseLeft(ttl int, phase float64) float64 {
	return float64(ttl) - phase*float64(ttl)/3
}

// LeaseTTL computes the table for TTLs of 2, 10 and 30 s.
func LeaseTTL(seed uint32) LeaseTTLResult {
	var res LeaseTTLResult
	for _, ttl := range leaseTTLs {
		row := LeaseRow{TTL: ttl, RenewEvery: float64(ttl) / 3, KeepAlives: int64(math.Round(leaseHolders / (float64(ttl) / 3)))}
		var sum float64
		leaseRun(NewMulberry32(seed), func(length, phase float64) {
			if length > leaseLeft(ttl, phase) {
				row.FalseExpiries++
			}
		}, func(phase float64) {
			rec := leaseLeft(ttl, phase) + leaseTakeover
			sum += rec
			row.WorstRecovery = max(row.WorstRecovery, rec)
		})
		row.AvgRecovery = sum / leaseCrashes
		res.Rows = append(res.Rows, row)
	}
	return res
}

// Table renders the table and the keep-alive load as the chapter does.
func (r LeaseTTLResult) Table() string {
	var rows [][]string
	var load []string
	for i, x := range r.Rows {
		rows = append(rows, []string{
			fmt.Sprintf("%d s", x.TTL),
			fmt.Sprintf("%.2f s", x.RenewEvery),
			fmt.Sprintf("%.1f s", x.AvgRecovery),
			fmt.Sprintf("%.1f s", x.WorstRecovery),
			fmt.Sprint(x.FalseExpiries),
		})
		at := fmt.Sprintf("at %d s", x.TTL)
		if i == 0 {
			at = fmt.Sprintf("at TTL %d s", x.TTL)
		}
		load = append(load, fmt.Sprintf("%s/s %s", thousands(x.KeepAlives), at))
	}
	return mdTable([]string{"TTL", "renew every", "average recovery", "worst recovery", "false expiries per 10k stalls"}, rows) +
		fmt.Sprintf("\nKeep-alive load for %s holders: %s (rounded %s ÷ (TTL/3)).\n",
			thousands(leaseHolders), strings.Join(load, ", "), thousands(leaseHolders))
}

// LeaseHistory turns every false expiry of the run with the given TTL (in
// seconds) into an episode of a lock history (key "lock") with storage
// writes (key "storage", starting at 0), times in ms. In each episode A
// acquires, then stalls; its lease runs out, B takes over 0.3 s later and
// writes with its higher token; A wakes still believing it holds the lock,
// writes with its old token, and its release fails. A mutex check flags
// every episode; a lease-aware check with the TTL accepts them. Unfenced
// storage accepts A's stale write; fenced storage (fenced) refuses it when
// B's write came first.
func LeaseHistory(ttl int, seed uint32, fenced bool) (*history.History, error) {
	if ttl < 1 || ttl > 3600 {
		return nil, fmt.Errorf("lease: ttl must be from 1 to 3600 s, got %d", ttl)
	}
	lockKey, storeKey := history.StringValue("lock"), history.StringValue("storage")
	var ops []history.Op
	var token int64
	ttlMS := int64(ttl) * 1000
	start := int64(0)
	leaseRun(NewMulberry32(seed), func(length, phase float64) {
		if length <= leaseLeft(ttl, phase) {
			return
		}
		// A's acquire is its last renewal: the stall starts phase·R later
		// and the lease ends TTL after the renewal.
		renewed := start + 1
		expires := renewed + ttlMS
		wake := renewed + int64(math.Round(phase*float64(ttlMS)/3)) + int64(math.Round(length*1000))
		takeover := expires + int64(leaseTakeover*1000)
		token++
		tokA := history.IntValue(token)
		token++
		tokB := history.IntValue(token)

		acqA := op("A", "acquire", lockKey, tokA, start, renewed, history.OK)
		acqA.Token = tokA
		acqB := op("B", "acquire", lockKey, tokB, renewed+1, takeover, history.OK)
		acqB.Token = tokB
		writeB := op("B", "write", storeKey, tokB, takeover+10, takeover+20, history.OK)
		writeB.Token = tokB
		relB := op("B", "release", lockKey, history.Value{}, takeover+30, takeover+40, history.OK)
		relB.Token = tokB
		writeA := op("A", "write", storeKey, tokA, wake, wake+10, history.OK)
		writeA.Token = tokA
		if fenced && writeB.Return <= writeA.Call {
			writeA.Status = history.Fail
		}
		relA := op("A", "release", lockKey, history.Value{}, wake+20, wake+30, history.Fail)
		relA.Token = tokA
		ops = append(ops, acqA, acqB, writeB, relB, writeA, relA)
		start = max(relA.Return, relB.Return) + 1000
	}, func(float64) {})
	return build("lease", ops, metaTTL(LeaseModel, history.IntValue(0), ttlMS))
}

// LeaseModel is how the lease-length history is checked: the lock as a
// lease with the run's TTL, the storage as a register that refuses stale
// tokens.
const LeaseModel = "lock=lease,storage=fenced-register"

// leaseShows says what the table shows and how the history of the run with
// the given TTL (s) is judged.
func leaseShows(r LeaseTTLResult, ttl int, fenced bool) string {
	s := "A short lease recovers fast after a crash but expires falsely during long stalls; a long one is the other way round. "
	n := "the false expiries"
	for _, x := range r.Rows {
		if x.TTL == ttl {
			n = fmt.Sprintf("the %d false expiries", x.FalseExpiries)
		}
	}
	s += fmt.Sprintf("The history turns %s of a %d s lease into episodes in which B takes over while A still believes it holds the lock; ", n, ttl)
	if fenced {
		return s + "fenced storage refuses each late write of A that arrives after B's, and the check (lease with the TTL, fenced register) passes."
	}
	return s + "the lease check accepts each takeover, but the fenced-register check of the storage flags A's late writes, which it accepted."
}

func leaseTTLScenario() Scenario {
	flags := []Flag{
		{Name: "ttl", Default: "2", Usage: "lease length in seconds for the history"},
		{Name: "seed", Default: fmt.Sprint(LeaseSeed), Usage: "generator seed"},
		{Name: "fenced", Default: "false", Usage: "true: the storage refuses writes with a stale token"},
	}
	return Scenario{
		Name:        "lease-ttl",
		Description: "lease length: recovery time after a crash versus false expiries during stalls",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			ttl, err := parseInt("ttl", v["ttl"], 1, 3600)
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			fenced, err := parseChoice("fenced", v["fenced"], "true", "false")
			if err != nil {
				return nil, err
			}
			h, err := LeaseHistory(ttl, seed, fenced == "true")
			if err != nil {
				return nil, err
			}
			expect := map[bool]string{false: "false", true: "true"}[fenced == "true"]
			if len(h.Ops) == 0 {
				expect = "true"
			}
			res := LeaseTTL(seed)
			return &Output{Table: closing(res.Table(), leaseShows(res, ttl, fenced == "true"), "lease-ttl", flags, v, expect), History: h,
				Model: LeaseModel, Options: model.Options{Init: history.IntValue(0), TTL: int64(ttl) * 1000}, Expect: expect}, nil
		},
	}
}
