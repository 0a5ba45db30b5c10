package format

import (
	"fmt"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestBatchedJSONLines reads long JSON Lines files, whose lines past the
// first batch are parsed on several cores, and compares the history, or
// the error, with the exact reader's, which reads line by line.
func TestBatchedJSONLines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	const n = 18_000 // events: many batches
	lines := func(edit func(i int, line string) string) string {
		var sb strings.Builder
		for i := range n {
			p := i / 2 % 7
			line := fmt.Sprintf(`{"process":%d,"type":"invoke","f":"txn","value":[["append",%d,%d],["r",%d,null]],"index":%d}`, p, i%50, i, i%13, i)
			if i%2 == 1 {
				line = fmt.Sprintf(`{"process":%d,"type":"ok","f":"txn","value":[["append",%d,%d],["r",%d,[1,2,%d]]],"index":%d}`, p, (i-1)%50, i-1, (i-1)%13, i, i)
			}
			sb.WriteString(edit(i, line))
			sb.WriteByte('\n')
		}
		return sb.String()
	}
	same := func(_ int, line string) string { return line }
	for _, c := range []struct {
		name string
		text string
	}{
		{"valid", lines(same)},
		{"blank lines and CRLF", lines(func(i int, line string) string {
			switch i % 1000 {
			case 10:
				return line + "\n   "
			case 11:
				return line + "\r"
			}
			return line
		})},
		{"a malformed line late", lines(func(i int, line string) string {
			if i == 16_001 {
				return line[:len(line)-1]
			}
			return line
		})},
		{"a line of invalid UTF-8", lines(func(i int, line string) string {
			if i == 14_000 {
				return line + "\xff"
			}
			return line
		})},
		{"a completion without invocation late", lines(func(i int, line string) string {
			if i == 12_000 {
				return ""
			}
			return line
		})},
		{"a line the fast reader leaves to the exact one", lines(func(i int, line string) string {
			if i%3000 == 0 {
				return strings.Replace(line, `"f":"txn"`, `"f":"t\u0078n"`, 1)
			}
			return line
		})},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A file of known size is read in batches; the exact reader
			// reads line by line.
			got, gerr := readJSONLWith(&budgeted{r: strings.NewReader(c.text), size: int64(len(c.text))}, true)
			want, werr := readJSONLWith(strings.NewReader(c.text), false)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("error %v, want %v", gerr, werr)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("the batched read differs from the exact one: %d operations, want %d", len(got.Ops), len(want.Ops))
			}
			if c.name == "valid" && (werr != nil || len(want.Ops) != n/2) {
				t.Fatalf("%v, %d operations", werr, len(want.Ops))
			}
		})
	}
}

// TestBatchedEDN reads long EDN files, whose op maps past the first
// batch are framed on one goroutine and read on several cores, and
// compares the history, or the error, with the exact reader's, which
// reads form by form.
func TestBatchedEDN(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	const n = 20_000 // op maps: the first batch, read as they come, and many more
	ops := func(edit func(i int, op string) string) string {
		var sb strings.Builder
		sb.WriteString("{:model \"list-append\"\n :history [")
		for i := range n {
			p := i / 2 % 7
			op := fmt.Sprintf(`{:process %d, :type :invoke, :f :txn, :value [[:append %d %d] [:r %d nil]], :index %d}`, p, i%50, i, i%13, i)
			if i%2 == 1 {
				op = fmt.Sprintf(`{:process %d, :type :ok, :f :txn, :value [[:append %d %d] ["r" %d [1 2 %d]]], :index %d}`, p, (i-1)%50, i-1, (i-1)%13, i, i)
			}
			sb.WriteString(edit(i, op))
			sb.WriteString("\n  ")
		}
		sb.WriteString("]}\n")
		return sb.String()
	}
	late := func(at int, f func(op string) string) string {
		return ops(func(i int, op string) string {
			if i == at {
				return f(op)
			}
			return op
		})
	}
	for _, c := range []struct {
		name string
		text string
	}{
		{"valid", ops(func(_ int, op string) string { return op })},
		{"comments, discards, tags and sets late", ops(func(i int, op string) string {
			switch i % 997 {
			case 1:
				return "; a comment\n" + op
			case 2:
				return "#_ {:process 1 :type :fail} " + op
			case 3:
				return "#jepsen.history.Op" + op
			case 4:
				return strings.Replace(op, ":f :txn", ":f :txn, :extra #{1 2}", 1)
			}
			return op
		})},
		{"a malformed op map late", late(15_001, func(op string) string { return strings.Replace(op, ":type", ":type :ok :type", 1) })},
		{"an op map of an unknown type late", late(17_000, func(op string) string { return strings.Replace(op, ":type :invoke", ":type :bogus", 1) })},
		{"a completion without invocation late", late(12_000, func(string) string { return "" })},
		{"an unexpected closer late", late(16_000, func(op string) string { return op + ")" })},
		{"an unclosed vector", strings.TrimSuffix(ops(func(_ int, op string) string { return op }), "]}\n")},
		{"an unfinished op map at the end", strings.TrimSuffix(ops(func(_ int, op string) string { return op }), "}\n  ]}\n")},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, gerr := readEDNSized(strings.NewReader(c.text), nil, true, int64(len(c.text)))
			want, werr := readEDN(strings.NewReader(c.text), nil, false)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("error %v, want %v", gerr, werr)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("the batched read differs from the exact one: %d operations, want %d", len(got.Ops), len(want.Ops))
			}
			if c.name == "valid" && (werr != nil || len(want.Ops) != n/2) {
				t.Fatalf("%v, %d operations", werr, len(want.Ops))
			}
		})
	}
}

// TestQuickFrame compares quickFrame with ednFrame on random text made
// of the bytes that matter to them: wherever quickFrame finds a form, it
// ends where ednFrame's does, over as many lines; it takes the op maps
// of a history.
func TestQuickFrame(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const alphabet = "{}[]()\" \n\\a1:#;^,"
	found := 0
	for range 20_000 {
		b := make([]byte, 1+rng.Intn(24))
		b[0] = "{[("[rng.Intn(3)]
		for i := 1; i < len(b); i++ {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		end, lines, ok := quickFrame(b)
		if !ok {
			continue
		}
		found++
		wend, wlines, done := ednFrame(b, false)
		if !done || end != wend || lines != wlines {
			t.Fatalf("%q: quickFrame ends at %d after %d lines, ednFrame at %d after %d (done %v)", b, end, lines, wend, wlines, done)
		}
	}
	if found < 1000 {
		t.Fatalf("quickFrame took %d random forms: too few to compare", found)
	}
	op := "{:process 1, :type :ok, :f :txn, :value [[:append 3 1] [\"r\" 4 [1 2]]],\n :index 7}"
	if end, lines, ok := quickFrame([]byte(op + " {:process 2}")); !ok || end != len(op) || lines != 1 {
		t.Errorf("quickFrame(op map) = %d, %d, %v; want %d, 1, true", end, lines, ok, len(op))
	}
}

// mixedEvents writes n events of processes that invoke and complete in
// every way: ok with a value and without one, failed, crashed, never
// completed, and now and then invoked again while an operation is open
// (the process runs operations at once, which the Pairer pairs by value):
// one event per line, as EDN op maps or JSON objects.
func mixedEvents(seed int64, n int, edn bool) []string {
	rng := rand.New(rand.NewSource(seed))
	open := make([][]int, 9) // per process, the open operations' numbers
	var out []string
	value := func(k, v int, read string) (string, string) {
		return fmt.Sprintf(`[[:append %d %d] [:r %d %s]]`, k, v, k, read),
			fmt.Sprintf(`[["append",%d,%d],["r",%d,%s]]`, k, v, k, strings.ReplaceAll(strings.ReplaceAll(read, " ", ","), "nil", "null"))
	}
	event := func(p int, typ string, op int, withValue bool, read string) string {
		ev, jv := value(op%11, op, read)
		if edn {
			s := fmt.Sprintf(`{:process %d, :type :%s, :f :txn`, p, typ)
			if withValue {
				s += ", :value " + ev
			}
			return s + fmt.Sprintf(", :index %d}", len(out))
		}
		s := fmt.Sprintf(`{"process":%d,"type":%q,"f":"txn"`, p, typ)
		if withValue {
			s += `,"value":` + jv
		}
		return s + fmt.Sprintf(`,"index":%d}`, len(out))
	}
	for op := 0; len(out) < n; {
		p := rng.Intn(len(open))
		if len(open[p]) == 0 || rng.Intn(20) == 0 {
			out = append(out, event(p, "invoke", op, true, "nil"))
			open[p] = append(open[p], op)
			op++
			continue
		}
		k := rng.Intn(len(open[p]))
		done := open[p][k]
		// Of several open operations, a completion without a value
		// could close any: the Pairer refuses it.
		valued := len(open[p]) > 1 || rng.Intn(2) == 0
		open[p] = append(open[p][:k], open[p][k+1:]...)
		switch r := rng.Intn(20); {
		case r < 13:
			out = append(out, event(p, "ok", done, true, fmt.Sprintf("[1 %d]", done)))
		case r < 15:
			out = append(out, event(p, "ok", done, valued, "[]"))
		case r < 17:
			out = append(out, event(p, "fail", done, valued, "[9]"))
		default:
			out = append(out, event(p, "info", done, valued, "[9]"))
		}
	}
	return out
}

// TestBatchedInvocationValues reads histories of mixed outcomes in
// batches and form by form, in both formats, and compares them: the
// batched readers give an invocation its completion's value in advance
// and must give it its own back wherever the operation keeps it.
func TestBatchedInvocationValues(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for seed := range int64(4) {
		for _, edn := range []bool{true, false} {
			lines := mixedEvents(seed, 12_000, edn)
			var got, want *history.History
			var gerr, werr error
			if edn {
				text := "[" + strings.Join(lines, "\n ") + "]\n"
				got, gerr = readEDNSized(strings.NewReader(text), nil, true, int64(len(text)))
				want, werr = readEDN(strings.NewReader(text), nil, false)
			} else {
				text := strings.Join(lines, "\n") + "\n"
				got, gerr = readJSONLWith(&budgeted{r: strings.NewReader(text), size: int64(len(text))}, true)
				want, werr = readJSONLWith(strings.NewReader(text), false)
			}
			if gerr != nil || werr != nil {
				t.Fatalf("seed %d, EDN %v: errors %v and %v", seed, edn, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				for i := range want.Ops {
					if i < len(got.Ops) && !reflect.DeepEqual(got.Ops[i], want.Ops[i]) {
						t.Fatalf("seed %d, EDN %v: operation %d is %+v, want %+v", seed, edn, i, got.Ops[i], want.Ops[i])
					}
				}
				t.Fatalf("seed %d, EDN %v: the batched read differs from the exact one", seed, edn)
			}
		}
	}
}
