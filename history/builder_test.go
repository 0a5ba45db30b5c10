package history

import (
	"testing"
	"unsafe"
)

// TestListBuilder builds lists element by element, nested ones included,
// and compares them with ListValue of the same elements.
func TestListBuilder(t *testing.T) {
	long := make([]Value, 12) // a nested list whose length takes two digits and more
	for i := range long {
		long[i] = IntValue(int64(i * 1000))
	}
	for _, c := range []struct {
		name  string
		build func(b *ListBuilder)
		want  Value
	}{
		{"empty", func(*ListBuilder) {}, ListValue()},
		{"scalars", func(b *ListBuilder) {
			b.AddInt(-12)
			b.AddString([]byte("append"))
			b.Add(NilValue)
			b.Add(BoolValue(true))
			b.Add(FloatValue(1.5))
		}, ListValue(IntValue(-12), StringValue("append"), NilValue, BoolValue(true), FloatValue(1.5))},
		{"digits", func(b *ListBuilder) {
			for _, t := range []string{"0", "7", "-12", "123456789012345678", "-123456789"} {
				if !b.AddDigits([]byte(t)) {
					panic(t)
				}
			}
			for _, t := range []string{"", "-", "-0", "007", "+5", "1234567890123456789", "1e3", "12a"} {
				if b.AddDigits([]byte(t)) {
					panic(t)
				}
			}
		}, ListValue(IntValue(0), IntValue(7), IntValue(-12), IntValue(123456789012345678), IntValue(-123456789))},
		{"a micro-operation", func(b *ListBuilder) {
			b.Open()
			b.AddString([]byte("r"))
			b.AddInt(90)
			b.Open()
			b.AddInt(1)
			b.AddInt(2)
			b.Close()
			b.Close()
			b.Open()
			b.Close()
		}, ListValue(ListValue(StringValue("r"), IntValue(90), ListValue(IntValue(1), IntValue(2))), ListValue())},
		{"long nested", func(b *ListBuilder) {
			b.Open()
			for _, v := range long {
				b.Add(v)
			}
			b.Close()
			b.Add(SetValue(IntValue(2), IntValue(1)))
		}, ListValue(ListValue(long...), SetValue(IntValue(1), IntValue(2)))},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b ListBuilder
			b.AddInt(7) // what Reset must forget
			b.Reset()
			c.build(&b)
			if got := b.List(); got != c.want {
				t.Errorf("got %s (%q), want %s (%q)", got, got.text, c.want, c.want.text)
			}
		})
	}
}

// TestListBuilderBlocks builds many lists, short and long, with and
// without shared blocks, and checks that every list, kept until the end,
// is still the one built: a list copied into a block is never written
// over by a later one, in the same block or past its end.
func TestListBuilderBlocks(t *testing.T) {
	var plain, blocked ListBuilder
	blocked.UseBlocks()
	var got, want []Value
	for i := range 5000 {
		n := i % 40
		if i%997 == 0 {
			n = 3 * blockedList // longer than a block holds
		}
		for _, b := range []*ListBuilder{&plain, &blocked} {
			b.Reset()
			for j := range n {
				b.AddInt(int64(i*7 + j))
			}
		}
		want = append(want, plain.List())
		got = append(got, blocked.List())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("list %d: %v, want %v", i, got[i], want[i])
		}
	}
	if len(blocked.block) == 0 || cap(blocked.block) != listBlock {
		t.Fatalf("no lists in a block: %d bytes of %d", len(blocked.block), cap(blocked.block))
	}
}

// TestListBuilderScratch builds lists into scratch memory, keeps some,
// reuses the memory for others, and checks that the kept ones are
// unchanged and the others were never copied out.
func TestListBuilderScratch(t *testing.T) {
	var b ListBuilder
	b.UseBlocks()
	var s Scratch
	var kept, want []Value
	size := func() (n int) {
		for _, c := range s.chunks {
			n += cap(c)
		}
		return n
	}
	first := 0 // the memory after the first round, reused after it
	for round := range 50 {
		b.SetScratch(&s)
		for i := range 300 {
			b.Reset()
			for j := range (round + i) % 30 {
				b.AddInt(int64(round*1000 + i*10 + j))
			}
			if long := i == 7; long {
				b.AddString(make([]byte, 2*listBlock)) // longer than a chunk
			}
			v := b.List()
			if v.Len() > 0 && !s.holds(v.text) {
				t.Fatalf("round %d: list %d not in the scratch memory", round, i)
			}
			if i%3 == 0 {
				k := b.Keep(v)
				if v.Len() > 0 && s.holds(k.text) {
					t.Fatalf("round %d: list %d kept in the scratch memory", round, i)
				}
				kept, want = append(kept, k), append(want, ListValue(v.Elems()...))
			}
		}
		if round == 0 {
			first = size()
		} else if size() > first+listBlock {
			t.Fatalf("round %d: %d bytes of scratch memory, %d after the first: not reused", round, size(), first)
		}
		b.SetScratch(nil)
		if other := b.Keep(kept[0]); unsafe.StringData(other.text) != unsafe.StringData(kept[0].text) {
			t.Fatal("a list outside the scratch memory was copied")
		}
		s.Reset()
	}
	for i := range kept {
		if kept[i] != want[i] {
			t.Fatalf("kept list %d: %v, want %v", i, kept[i], want[i])
		}
	}
}
