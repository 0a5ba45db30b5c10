package jepsen_test

import (
	"testing"

	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

// TestParseOptions: options given win over the history's own settings,
// which are read with dashes or underscores.
func TestParseOptions(t *testing.T) {
	meta := map[string]history.Value{"total_amount": history.IntValue(50), "negative-balances": history.BoolValue(true)}
	o, err := jepsen.ParseOptions(jepsen.Bank, nil, meta)
	if err != nil || !o.HasTotal || o.TotalAmount != 50 || !o.NegativeBalances {
		t.Errorf("from the history: %+v, %v", o, err)
	}
	o, err = jepsen.ParseOptions(jepsen.Bank, map[string]string{"total-amount": "7"}, meta)
	if err != nil || o.TotalAmount != 7 {
		t.Errorf("given: %+v, %v", o, err)
	}
	o, err = jepsen.ParseOptions(jepsen.LongFork, map[string]string{"group-size": "3"}, nil)
	if err != nil || o.GroupSize != 3 {
		t.Errorf("group size: %+v, %v", o, err)
	}
	if _, err := jepsen.ParseOptions(jepsen.SetFull, map[string]string{"linearizable": "yes"}, nil); err == nil {
		t.Error("linearizable=yes: no error")
	}
}
