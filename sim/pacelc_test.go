package sim

import (
	"reflect"
	"strings"
	"testing"
)

const pacelcTable = `| users near | share | linearizable read | local read |
| --- | --- | --- | --- |
| X | 50% | 31 ms | 1 ms |
| Y | 30% | 31 ms | 1 ms |
| Z | 20% | 61 ms | 1 ms |
| average |  | 37 ms | 1 ms |

5 such reads on one page cost 185 ms instead of 5 ms.
`

func TestPACELC(t *testing.T) {
	res, err := PACELC(DefaultPACELC())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Linearizable, []float64{31, 31, 61}) || res.Average != 37 || res.PageLinearizable != 185 || res.PageLocal != 5 {
		t.Errorf("got %v, average %v, page %v vs %v; want [31 31 61], 37, 185 vs 5",
			res.Linearizable, res.Average, res.PageLinearizable, res.PageLocal)
	}
	if got := res.Table(); got != pacelcTable {
		t.Errorf("table:\n%s\nwant:\n%s", got, pacelcTable)
	}
}

func TestPACELCParams(t *testing.T) {
	s, _ := Lookup("pacelc")
	out, err := s.Run(Params{"rtt": "10,20,40", "shares": "1,1,2", "reads": "2"})
	if err != nil {
		t.Fatal(err)
	}
	// Near X 1+10, near Y 1+10, near Z 1+20; weights 1/4, 1/4, 1/2.
	want := "| X | 1% | 11 ms | 1 ms |\n| Y | 1% | 11 ms | 1 ms |\n| Z | 2% | 21 ms | 1 ms |\n| average |  | 16 ms | 1 ms |\n\n2 such reads on one page cost 32 ms instead of 2 ms.\n"
	// The figures end the table proper; the closing lines follow.
	got := out.Table
	if i := strings.Index(got, want); i < 0 || !strings.HasPrefix(got[i+len(want):], "\nWithout a partition") {
		t.Errorf("table:\n%s\nwant its figures to end with:\n%s", got, want)
	}
	bad := []PACELCParams{
		{Regions: []string{"X"}, RTT: [][]float64{{0}}, Shares: []float64{1}},
		{Regions: []string{"X", "Y"}, RTT: [][]float64{{0, 1}}, Shares: []float64{1, 1}},
		{Regions: []string{"X", "Y"}, RTT: [][]float64{{0, 1}, {1, 0}}, Shares: []float64{0, 0}},
		{Regions: []string{"X", "Y"}, RTT: [][]float64{{0, 1}, {1}}, Shares: []float64{1, 1}},
	}
	for i, p := range bad {
		if _, err := PACELC(p); err == nil {
			t.Errorf("bad params %d accepted", i)
		}
	}
}
