package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// FencingLate runs the stock example with fencing on, but with B slow to
// write: B acquires at 11 s (token 34) and reads 10 at 12 s, yet its first
// write reaches the storage only at 16 s. A wakes at 15 s and writes 9 with
// token 33: the storage has not seen 34 yet and accepts it, the chapter's
// third condition broken; B then writes 8 with 34, and A's sale is lost.
// With register, B registers its token with the storage as soon as it
// acquires, so A's write is refused, A starts over, and the stock ends at 7.
func FencingLate(register bool) CheckThenWriteResult {
	res := CheckThenWriteResult{Remedy: "late"}
	if register {
		res.Remedy = "late+register"
	}
	t := &res.tl
	stock := history.StringValue("stock")
	sold := map[string]int{"A": 1, "B": 2}
	value, highest := fencingStock, int64(fencingLastToken)
	// readAt is when each holder last read the stock, for its sale.
	readAt := map[string]int64{}
	read := func(who string, at int64) int {
		t.add(op(who, "read", stock, history.IntValue(int64(value)), at, at+10, history.OK), "%s reads stock %d", who, value)
		readAt[who] = at
		return value
	}
	write := func(who string, at int64, v int, token int64) bool {
		o := storeOp(who, "write", "stock", history.IntValue(int64(v)), token, at, at+10, history.OK)
		// The sale: the holder's read and write under the lock as the one
		// step the lock was meant to make them, from the stock it read to
		// the stock it wrote.
		// It is recorded by a process of its own (sale-A), since it spans
		// the holder's read and write.
		sale := op("sale-"+who, "cas", history.StringValue("sale"), history.ListValue(history.IntValue(int64(v+sold[who])), history.IntValue(int64(v))),
			readAt[who], at+10, history.OK)
		if token < highest {
			o.Status, sale.Status = history.Fail, history.Fail
			t.add(o, "%s writes %d with token %d: rejected, the storage has seen token %d", who, v, token, highest)
			res.tl.ops = append(res.tl.ops, sale)
			return false
		}
		value, highest = v, token
		t.add(o, "%s writes %d with token %d: accepted (the highest token the storage has seen is now %d)", who, v, token, highest)
		res.tl.ops = append(res.tl.ops, sale)
		return true
	}
	t.add(lockOp("A", "acquire", 33, 0, 10, history.OK), "A acquires the lock (token 33, lease until 10 s)")
	a := read("A", 1000)
	t.note(2000, "A", "A pauses (GC) until 15 s")
	t.add(lockOp("B", "acquire", 34, 11_000, 11_010, history.OK), "B acquires the lock (token 34, lease until 21 s)")
	if register {
		highest = 34
		t.note(11_020, "B", "B registers token 34 with the storage at once")
	}
	b := read("B", 12_000)
	t.note(12_020, "B", "B works slowly; its first write is due at 16 s")
	okA := write("A", 15_000, a-1, 33)
	write("B", 16_000, b-2, 34)
	t.add(lockOp("B", "release", 34, 16_020, 16_030, history.OK), "B releases the lock")
	if !okA {
		t.add(lockOp("A", "acquire", 35, 17_000, 17_010, history.OK), "A acquires the lock again (token 35, lease until 27 s)")
		a = read("A", 17_020)
		write("A", 18_000, a-1, 35)
	}
	res.FinalStock = value
	return res
}

// FencingLateModel is how a FencingLate history is checked: the lock as a
// lease, the stock as a fenced register, and each holder's sale (its read
// and write under the lock, as one step) as a compare-and-set register
// starting at the same 10.
const FencingLateModel = "lock=lease,stock=fenced-register,sale=cas-register"

// lateTable renders a FencingLate run.
func (r CheckThenWriteResult) lateTable() string {
	var sb strings.Builder
	if r.Remedy == "late" {
		sb.WriteString("With fencing tokens, the old holder's write first:\n\n")
	} else {
		sb.WriteString("With fencing tokens, the new holder's token registered at once:\n\n")
	}
	sb.WriteString(r.tl.table())
	verdict := "the right result"
	if r.FinalStock != fencingStock-3 {
		verdict = fmt.Sprintf("a lost update (the right result is %d)", fencingStock-3)
	}
	fmt.Fprintf(&sb, "\nFinal stock %d: %s.\n", r.FinalStock, verdict)
	return sb.String()
}

func (r CheckThenWriteResult) lateShows() string {
	if r.Remedy == "late" {
		return "Tokens must grow and storage must check them, but storage must also have seen the new token before the old holder's late write arrives: " +
			"here 33 reached it before 34, so it was accepted and A's sale was lost. " +
			"The lease and the fenced stock are each right on their own; what fails is the sales, each holder's read and write under the lock taken as the one step " +
			"the lock was meant to make them: both went from 10, so they cannot both have happened, and the check (key sale, compare-and-set) fails."
	}
	return "B registered token 34 with the storage as soon as it acquired, so A's late write with 33 was refused, A started over, and the stock ends at 7. " +
		"Checked with the lease model for the lock, the fenced-register model for the stock and the sales as compare-and-set steps, the history passes."
}
