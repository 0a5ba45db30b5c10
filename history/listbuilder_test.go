package history

import "testing"

// TestListBuilder checks that a list built element by element equals the
// same list made of values.
func TestListBuilder(t *testing.T) {
	var b ListBuilder
	for range 2 { // the second time on reused buffers
		b.Row()
		b.Value(StringValue("w"))
		b.Int(12)
		b.Int(-3)
		b.EndRow()
		b.Row()
		b.Value(StringValue("r"))
		b.Value(StringValue("key"))
		b.Nil()
		b.EndRow()
		b.Int(1234567890123)
		b.Row()
		b.EndRow()
		b.Value(ListValue(IntValue(1), NilValue))
		got := b.List()
		want := ListValue(
			ListValue(StringValue("w"), IntValue(12), IntValue(-3)),
			ListValue(StringValue("r"), StringValue("key"), NilValue),
			IntValue(1234567890123),
			ListValue(),
			ListValue(IntValue(1), NilValue),
		)
		if got != want {
			t.Fatalf("built %s, want %s", got, want)
		}
	}
	if got := b.List(); got != ListValue() {
		t.Errorf("an empty builder gives %s", got)
	}
}
