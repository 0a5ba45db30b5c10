package format

import (
	"reflect"
	"strings"
	"testing"
)

// TestDuplicateIndexWarning reads histories whose operations share an
// index, in an event form and an operation form, and the same with
// distinct indices.
func TestDuplicateIndexWarning(t *testing.T) {
	const ambiguous = ", so reports that name operations by index are ambiguous"
	tests := []struct {
		name, file, text string
		want             []string
	}{
		{"EDN events", "h.edn", `{:process 0, :type :invoke, :f :read, :index 4}
{:process 0, :type :ok, :f :read, :value 0, :index 5}
{:process 1, :type :invoke, :f :read, :index 4}
{:process 1, :type :ok, :f :read, :value 0, :index 6}`,
			[]string{"index 4 is given to more than one operation (line 1 and line 3)" + ambiguous}},
		{"EDN events, distinct", "h.edn", `{:process 0, :type :invoke, :f :read, :index 4}
{:process 0, :type :ok, :f :read, :value 0, :index 5}
{:process 1, :type :invoke, :f :read, :index 6}
{:process 1, :type :ok, :f :read, :value 0, :index 7}`, nil},
		{"operations", "h.json", `[{"process": "A", "f": "read", "value": 0, "call": 0, "return": 1, "index": 8},
{"process": "B", "f": "read", "value": 0, "call": 2, "return": 3, "index": 8}]`,
			[]string{"index 8 is given to more than one operation (line 1 and line 2)" + ambiguous}},
		{"operations, distinct", "h.json", `[{"process": "A", "f": "read", "value": 0, "call": 0, "return": 1, "index": 8},
{"process": "B", "f": "read", "value": 0, "call": 2, "return": 3, "index": 9}]`, nil},
	}
	for _, tc := range tests {
		h, err := Read(tc.file, strings.NewReader(tc.text), "")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(h.Warnings, tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, h.Warnings, tc.want)
		}
	}
}
