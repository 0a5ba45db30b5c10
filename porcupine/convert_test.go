package porcupine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/porcupine"
)

// TestToHistory checks the conversion's outcomes, times and errors.
func TestToHistory(t *testing.T) {
	describe := func(input, output interface{}) (porcupine.Call, error) {
		in := input.(registerInput)
		if in.value < 0 {
			return porcupine.Call{}, errors.New("negative value")
		}
		if in.write {
			return porcupine.Call{F: "write", Value: history.IntValue(int64(in.value)), Unknown: in.value == 9, Failed: in.value == 8}, nil
		}
		return porcupine.Call{F: "read", Value: history.IntValue(int64(output.(int)))}, nil
	}
	cases := []struct {
		name    string
		ops     []porcupine.Operation
		status  []history.Type
		wantErr string
	}{
		{"ok, unknown and failed", []porcupine.Operation{
			{ClientId: 0, Input: registerInput{true, 1}, Call: 0, Return: 5},
			{ClientId: 1, Input: registerInput{true, 9}, Call: 1, Return: 6},
			{ClientId: 2, Input: registerInput{true, 8}, Call: 2, Return: 7},
			{ClientId: 0, Input: registerInput{false, 0}, Output: 1, Call: 8, Return: 9},
		}, []history.Type{history.OK, history.Info, history.Fail, history.OK}, ""},
		{"describe fails", []porcupine.Operation{{Input: registerInput{true, -1}, Call: 0, Return: 1}}, nil, "operation 0: negative value"},
		{"a client overlaps itself", []porcupine.Operation{
			{ClientId: 0, Input: registerInput{true, 1}, Call: 0, Return: 5},
			{ClientId: 0, Input: registerInput{true, 2}, Call: 1, Return: 6},
		}, nil, "porcupine: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := porcupine.ToHistory(c.ops, describe)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range h.Ops {
				if o.Status != c.status[i] || o.Call != c.ops[i].Call {
					t.Errorf("op %d: %v at %d, want %v at %d", i, o.Status, o.Call, c.status[i], c.ops[i].Call)
				}
			}
			back := porcupine.FromHistory(h)
			if len(back) != len(c.ops)-1 {
				t.Errorf("FromHistory kept %d operations, want all but the failed one", len(back))
			}
		})
	}
}
