package sim

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The partition scenario's fixed sizes (chapter on CAP, section 2).
const (
	PartitionReplicas = 5
	PartitionKeys     = 200
	PartitionRequests = 1000
	PartitionSeed     = 41
)

// PartitionRow is one line of the CP-versus-AP table: a split cutting off
// Minority of the five replicas, run in one mode.
type PartitionRow struct {
	Minority        int    // replicas cut off: 2 for a 3|2 split, 1 for 4|1
	Mode            string // "cp" or "ap"
	Answered        int
	Rejected        int
	StaleReads      int
	ConflictingKeys int // keys both sides wrote, of PartitionKeys
	// Unplaced counts the reads that returned another value than the last
	// write to their key on either side: the reads a linearizability check
	// cannot place. FailingKeys counts the keys with such a read. Requests
	// never overlap, so these are what "histcheck check" reports.
	Unplaced, FailingKeys int
}

// Split names the split, "3|2" or "4|1".
func (r PartitionRow) Split() string {
	return fmt.Sprintf("%d|%d", PartitionReplicas-r.Minority, r.Minority)
}

// Availability is the share of requests answered, in percent.
func (r PartitionRow) Availability() float64 {
	return 100 * float64(r.Answered) / float64(r.Answered+r.Rejected)
}

// PartitionResult is the whole table: 3|2 then 4|1, CP then AP.
type PartitionResult struct{ Rows []PartitionRow }

// Partition runs the four simulations of the table, each from a fresh
// generator with the given seed (41 in the chapter).
func Partition(seed uint32) PartitionResult {
	var res PartitionResult
	for _, m := range []int{2, 1} {
		for _, mode := range []string{"cp", "ap"} {
			res.Rows = append(res.Rows, runPartition(m, mode, seed, nil))
		}
	}
	return res
}

// Table renders the result as the chapter's table.
func (r PartitionResult) Table() string {
	rows := make([][]string, len(r.Rows))
	for i, x := range r.Rows {
		rows[i] = []string{
			fmt.Sprintf("%d\\|%d", PartitionReplicas-x.Minority, x.Minority),
			modeName(x.Mode),
			fmt.Sprint(x.Answered),
			fmt.Sprint(x.Rejected),
			fmt.Sprintf("%.1f%%", x.Availability()),
			fmt.Sprint(x.StaleReads),
			fmt.Sprintf("%d of %d", x.ConflictingKeys, PartitionKeys),
		}
	}
	return mdTable([]string{"split", "mode", "answered", "rejected", "availability", "stale reads", "conflicting keys"}, rows)
}

func modeName(mode string) string {
	if mode == "cp" {
		return "CP"
	}
	return "AP"
}

// partitionRequest is one request as the simulation served it.
type partitionRequest struct {
	side     int // 0 majority, 1 minority
	key      int
	write    bool
	rejected bool
	value    int64 // the value written, or the value the read returned
}

// runPartition simulates one split in one mode; emit, when non-nil, sees
// every request in order.
func runPartition(minority int, mode string, seed uint32, emit func(i int, r partitionRequest)) PartitionRow {
	g := NewMulberry32(seed)
	row := PartitionRow{Minority: minority, Mode: mode}
	var version [2][PartitionKeys]int
	// value[side][key] is the last value that side wrote to the key, or the
	// one it last heard of before the partition (0, the initial value).
	var value [2][PartitionKeys]int64
	// last[key] is the last value written to the key on either side.
	var last [PartitionKeys]int64
	var failing [PartitionKeys]bool
	for i := 0; i < PartitionRequests; i++ {
		r := partitionRequest{}
		if g.Intn(PartitionReplicas) >= PartitionReplicas-minority {
			r.side = 1
		}
		r.key = g.Intn(PartitionKeys)
		r.write = g.Float64() < 0.5
		other := 1 - r.side
		switch {
		case mode == "cp" && r.side == 1:
			r.rejected = true
			row.Rejected++
			// Each request has its own value, so a rejected write is
			// told apart from every accepted one.
			r.value = int64(i + 1)
		case r.write:
			row.Answered++
			version[r.side][r.key]++
			r.value = int64(i + 1)
			value[r.side][r.key] = r.value
			last[r.key] = r.value
		default:
			row.Answered++
			if version[r.side][r.key] < version[other][r.key] {
				row.StaleReads++
			}
			r.value = value[r.side][r.key]
			if r.value != last[r.key] {
				row.Unplaced++
				failing[r.key] = true
			}
		}
		if emit != nil {
			emit(i, r)
		}
	}
	for k := 0; k < PartitionKeys; k++ {
		if version[0][k] > 0 && version[1][k] > 0 {
			row.ConflictingKeys++
		}
		if failing[k] {
			row.FailingKeys++
		}
	}
	return row
}

// PartitionHistory is the run of one split (minority 2 for 3|2, 1 for 4|1)
// in one mode ("cp" or "ap") as a key-value history: request i spans
// [10i, 10i+5] ms, clients "maj" and "min" stand for the two sides, a write
// writes i+1 (so every value is unique), a read returns the last value its
// side wrote to the key (0 initially), and rejected requests fail. The CP
// history is linearizable; the AP one is not, its stale reads being the
// witnesses.
func PartitionHistory(minority int, mode string, seed uint32) (*history.History, error) {
	if minority < 1 || minority > 2 {
		return nil, fmt.Errorf("partition: minority must be 1 (a 4|1 split) or 2 (a 3|2 split), got %d", minority)
	}
	if mode != "cp" && mode != "ap" {
		return nil, fmt.Errorf("partition: mode must be cp or ap, got %q", mode)
	}
	ops := make([]history.Op, 0, PartitionRequests)
	clients := [2]string{"maj", "min"}
	runPartition(minority, mode, seed, func(i int, r partitionRequest) {
		o := history.Op{
			Client: clients[r.side],
			Key:    history.IntValue(int64(r.key)),
			Call:   int64(10 * i),
			Return: int64(10*i + 5),
			Status: history.OK,
		}
		switch {
		case r.write:
			o.F, o.Value = "write", history.IntValue(r.value)
		case r.rejected:
			o.F, o.Value = "read", history.NilValue
		default:
			o.F, o.Value = "read", history.IntValue(r.value)
		}
		if r.rejected {
			o.Status = history.Fail
		}
		ops = append(ops, o)
	})
	return build("partition", ops, metaFor("kv", history.IntValue(0)))
}

// partitionShows says what the table shows and how the history of the
// chosen row is judged.
func partitionShows(r PartitionRow) string {
	s := "CP keeps every answer consistent by rejecting the minority's requests; AP answers everything and pays in stale reads and keys written on both sides. "
	if r.Mode == "cp" {
		return s + fmt.Sprintf("The history is the %s CP run (%d answered, %d rejected as failed operations): checked as a key-value store starting at 0, it is linearizable.",
			r.Split(), r.Answered, r.Rejected)
	}
	return s + fmt.Sprintf("The history is the %s AP run (%d stale reads, %d conflicting keys): checked as a key-value store starting at 0, it is not linearizable, "+
		"and check reports %d keys failing and %d reads it cannot place. "+
		"Check counts every read that missed a later write of the other side; the table counts a read as stale only when its side "+
		"had written the key fewer times than the other, and a key as conflicting when both sides wrote it.",
		r.Split(), r.StaleReads, r.ConflictingKeys, r.FailingKeys, r.Unplaced)
}

func partitionScenario() Scenario {
	flags := []Flag{
		{Name: "split", Default: "3|2", Usage: "the partition: 3|2 or 4|1"},
		{Name: "mode", Default: "ap", Usage: "cp (the minority rejects requests) or ap (both sides answer)"},
		{Name: "seed", Default: fmt.Sprint(PartitionSeed), Usage: "generator seed"},
	}
	return Scenario{
		Name:        "partition",
		Description: "CP versus AP under a network partition of five replicas: availability, stale reads, conflicts",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			split, err := parseChoice("split", v["split"], "3|2", "4|1")
			if err != nil {
				return nil, err
			}
			mode, err := parseChoice("mode", v["mode"], "cp", "ap")
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			minority := 2
			if split == "4|1" {
				minority = 1
			}
			h, err := PartitionHistory(minority, mode, seed)
			if err != nil {
				return nil, err
			}
			res := Partition(seed)
			var row PartitionRow
			for _, r := range res.Rows {
				if r.Minority == minority && r.Mode == mode {
					row = r
				}
			}
			expect := map[string]string{"cp": "true", "ap": "false"}[mode]
			return &Output{Table: closing(res.Table(), partitionShows(row), "partition", flags, v, expect), History: h, Model: "kv",
				Options: model.Options{Init: history.IntValue(0)}, Expect: expect}, nil
		},
	}
}
