package checker

import (
	"reflect"
	"testing"
)

// TestMapOps renames every operation a violation names, and leaves None,
// Initial and absent facts alone.
func TestMapOps(t *testing.T) {
	v := Violation{
		Ops: []int{0, 1}, Prefix: []int{1}, Writes: []int{2}, Pattern: "p", Key: "k",
		Op: 0, Source: 1, Newer: 2, Session: 3,
		Steps:    []Step{{From: Initial, To: 1, Rel: RelReadsFrom, Via: None, Source: 2, Seen: 3}},
		Versions: []Version{{Op: 2, Version: 7}},
		Zones:    []Zone{{Value: "1", Write: 0, FromOp: None, ToOp: 1}},
		Stuck:    []Stuck{{Op: 3, Said: "s"}},
	}
	got := v.MapOps(func(x int) int { return 10 + x })
	want := Violation{
		Ops: []int{10, 11}, Prefix: []int{11}, Writes: []int{12}, Pattern: "p", Key: "k",
		Op: 10, Source: 11, Newer: 12, Session: 13,
		Steps:    []Step{{From: Initial, To: 11, Rel: RelReadsFrom, Via: None, Source: 12, Seen: 13}},
		Versions: []Version{{Op: 12, Version: 7}},
		Zones:    []Zone{{Value: "1", Write: 10, FromOp: None, ToOp: 11}},
		Stuck:    []Stuck{{Op: 13, Said: "s"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MapOps:\n got %+v\nwant %+v", got, want)
	}
	if v.Ops[0] != 0 || v.Steps[0].To != 1 {
		t.Errorf("MapOps changed the original: %+v", v)
	}
	if e := (Violation{}).MapOps(func(x int) int { return x }); e.Ops != nil || e.Steps != nil {
		t.Errorf("absent facts became %+v", e)
	}
	if n, ok := got.VersionOf(12); !ok || n != 7 {
		t.Errorf("VersionOf(12) = %d, %v", n, ok)
	}
}
