package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// genReader produces an input on the fly from a function that appends the
// n-th record to a buffer, so that big inputs need no file and no memory.
type genReader struct {
	next func(dst []byte, n int) ([]byte, bool)
	n    int
	buf  []byte
	done bool
	read int64 // bytes handed out
}

func (g *genReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.done {
			return 0, io.EOF
		}
		var more bool
		g.buf, more = g.next(g.buf[:0], g.n)
		g.n++
		g.done = !more
	}
	k := copy(p, g.buf)
	g.buf = g.buf[k:]
	g.read += int64(k)
	return k, nil
}

// repeatReader gives n copies of b, then tail.
func repeatReader(head string, b byte, n int, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), io.LimitReader(byteRepeater(b), int64(n)), strings.NewReader(tail))
}

type byteRepeater byte

func (r byteRepeater) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// heapPeak samples the heap in use while f runs and returns the peak growth
// over the heap in use before it.
func heapPeak(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := base
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak {
				peak = m.HeapInuse
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > peak {
		peak = ms.HeapInuse
	}
	return peak - base
}

const mib = 1 << 20

// TestHostileInputs feeds inputs built to break a reader: each must give an
// *history.InputError at the right line with a clear message, without
// holding more memory than a bound.
func TestHostileInputs(t *testing.T) {
	big := "123456789012345678901234567890"
	tests := []struct {
		name     string
		file     string
		input    func() io.Reader
		line     int
		msg      string
		maxHeapM uint64 // bound on the heap growth, MiB
	}{
		{"100 MB line in JSON Lines", "h.jsonl",
			func() io.Reader {
				return repeatReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"value\": \"", 'x', 100*mib, "\"}\n")
			},
			2, fmt.Sprintf("record longer than %d bytes", format.RecordLimit), 48},
		{"100 MB line in a Jepsen log", "h.log",
			func() io.Reader {
				return repeatReader("INFO  jepsen.util - 0\t:invoke\t:read\tnil\n", ' ', 100*mib, "\n")
			},
			2, "record longer than", 48},
		{"100 MB line in the notation", "h.hist",
			func() io.Reader { return repeatReader("A: w(1) [0, 1]\n\n# ", '#', 100*mib, "\n") },
			3, "record longer than", 48},
		{"100 MB line, format detected", "h",
			func() io.Reader {
				return repeatReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 0", ' ', 100*mib, "}\n")
			},
			2, "record longer than", 48},
		{"deeply nested JSON value", "h.jsonl",
			func() io.Reader {
				return strings.NewReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"value\": " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n")
			},
			1, "JSON nested more than 1000 deep", 64},
		{"deeply nested EDN value", "h.edn",
			func() io.Reader {
				return strings.NewReader("{:process 0, :type :invoke, :f :read}\n{:process 0, :type :ok, :f :read, :value " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n")
			},
			2, "EDN nested more than 1000 deep", 64},
		{"deeply nested value in a log", "h.log",
			func() io.Reader {
				return strings.NewReader("INFO  jepsen.util - 0\t:invoke\t:read\t" + strings.Repeat("(", 100000) + "\n")
			},
			1, "EDN nested more than 1000 deep", 64},
		{"invalid UTF-8 in JSON Lines", "h.jsonl",
			func() io.Reader {
				return strings.NewReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"r\xc0\xafead\"}\n")
			},
			2, "invalid UTF-8", 16},
		{"invalid UTF-8 in EDN", "h.edn",
			func() io.Reader {
				return strings.NewReader("\n\n{:process 0, :type :invoke, :f :read, :value \"\xed\xa0\x80\"}")
			},
			3, "invalid UTF-8 (byte 0xed)", 16},
		{"invalid UTF-8 in the notation", "h.hist",
			func() io.Reader { return strings.NewReader("A: w(1) [0, 1]\nB: w(\xff) [0, 1]\n") },
			2, "invalid UTF-8", 16},
		{"time beyond 64 bits", "h.jsonl",
			func() io.Reader {
				return strings.NewReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": " + big + "}\n")
			},
			1, `"time" ` + big + " does not fit in a 64-bit integer", 16},
		{"index beyond 64 bits", "h.edn",
			func() io.Reader {
				return strings.NewReader("{:process 0, :type :invoke, :f :read, :index " + big + "N}")
			},
			1, ":index " + big + " does not fit in a 64-bit integer", 16},
		{"process beyond 64 bits", "h.json",
			func() io.Reader {
				return strings.NewReader("[{\"process\": " + big + ", \"type\": \"invoke\", \"f\": \"read\"}]")
			},
			1, `"process" ` + big + " does not fit in a 64-bit integer", 16},
		{"process beyond 64 bits in a log", "h.log",
			func() io.Reader { return strings.NewReader("INFO  jepsen.util - " + big + "\t:invoke\t:read\tnil\n") },
			1, "process " + big + " does not fit in a 64-bit integer", 16},
		{"call beyond 64 bits", "h.json",
			func() io.Reader { return strings.NewReader(`[["A", "w", 1, ` + big + `, 10]]`) },
			1, `"call" ` + big + " does not fit in a 64-bit integer", 16},
		{"call beyond 64 bits in the notation", "h.hist",
			func() io.Reader { return strings.NewReader("A: w(1) [" + big + ", 10]\n") },
			1, "call time " + big + " does not fit in a 64-bit integer", 16},
		{"negative event time", "h.jsonl",
			func() io.Reader {
				return strings.NewReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": 5}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"time\": -3}\n")
			},
			2, `"time" -3 is negative; times count up from the start of the history`, 16},
		{"decreasing times in one process, by times", "h.edn",
			func() io.Reader {
				return strings.NewReader("{:process 0, :type :invoke, :f :read, :time 10}\n{:process 0, :type :ok, :f :read, :time 20}\n" +
					"{:process 1, :type :invoke, :f :read, :time 2}\n{:process 0, :type :invoke, :f :read, :time 15}\n")
			},
			4, "time 15 is before the time 20 of process 0's previous event (line 2); each process's events must be in time order", 16},
		{"return before call", "h.hist",
			func() io.Reader { return strings.NewReader("A: w(1) [10, 5]\n") },
			1, "return time 5 is before call time 10", 16},
		{"completion before invocation, by times", "h.json",
			func() io.Reader {
				return strings.NewReader("[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": 9},\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"time\": 3}]")
			},
			2, "completion time 3 is before its invocation's time 9 (line 1)", 16},
		{"JSON Lines ending mid-record", "h.jsonl",
			func() io.Reader {
				return strings.NewReader("{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"re")
			},
			2, "unexpected end of input; the '{' opened at line 2 is not closed", 16},
		{"JSON ending mid-record", "h.json",
			func() io.Reader {
				return strings.NewReader("[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n{\"process\": 0, \"type\": \"ok\",")
			},
			2, "unexpected end of input; the '{' opened at line 2 is not closed", 16},
		{"EDN ending mid-record", "h.edn",
			func() io.Reader {
				return strings.NewReader("[{:process 0, :type :invoke, :f :read}\n{:process 0, :type :ok, :f :re")
			},
			2, "unexpected end of input; the '{' opened at line 2 is not closed", 16},
		{"notation ending mid-record", "h.hist",
			func() io.Reader { return strings.NewReader("A: w(1) [0, 10]\nB: r(1) [2,") },
			2, "expected the return time", 16},
		{"log ending mid-record", "h.log",
			func() io.Reader { return strings.NewReader("INFO  jepsen.util - 0\t:invoke\t:cas\t[1") },
			1, "unexpected end of input; the '[' opened at line 1 is not closed", 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			grew := heapPeak(func() { _, err = format.ReadWith(tc.file, tc.input(), format.Options{Order: orderOf(tc.name)}) })
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *history.InputError", err)
			}
			if ie.File != tc.file || ie.Line != tc.line || !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("got %s:%d %q\nwant %s:%d …%q…", ie.File, ie.Line, ie.Msg, tc.file, tc.line, tc.msg)
			}
			t.Logf("heap grew by %.1f MiB", float64(grew)/mib)
			if grew > tc.maxHeapM*mib {
				t.Errorf("heap grew by %d MiB, want at most %d MiB", grew/mib, tc.maxHeapM)
			}
		})
	}
}

// TestManyProcesses reads 100,000 processes, each with one operation and
// most of them restarting after an unknown outcome: the history is valid,
// the warnings stay few.
func TestManyProcesses(t *testing.T) {
	const n = 100000
	g := &genReader{next: func(dst []byte, i int) ([]byte, bool) {
		p := strconv.Itoa(i)
		dst = append(dst, `{"process": `+p+`, "type": "invoke", "f": "write", "value": 1}`+"\n"...)
		dst = append(dst, `{"process": `+p+`, "type": "info", "f": "write"}`+"\n"...)
		dst = append(dst, `{"process": `+p+`, "type": "invoke", "f": "read"}`+"\n"...)
		return dst, i < n-1
	}}
	start := time.Now()
	h, err := format.Read("many.jsonl", g, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 2*n || h.Processes != 2*n || h.Clients != n || len(h.Warnings) != 11 {
		t.Fatalf("%d ops, %d processes, %d clients, %d warnings; want %d, %d, %d, 11", len(h.Ops), h.Processes, h.Clients, len(h.Warnings), 2*n, 2*n, n)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d processes read in %v", h.Processes, time.Since(start).Round(time.Millisecond))
}

// eventLine appends the JSON Lines events of a history of ops operations by
// 16 processes: each round, every process invokes, then every one
// completes. pad adds spaces to each line, to show that memory does not
// follow the text.
func eventLines(ops, pad int) func(dst []byte, n int) ([]byte, bool) {
	const procs = 16
	return func(dst []byte, n int) ([]byte, bool) {
		base := n * procs
		for _, typ := range []string{"invoke", "ok"} {
			for p := 0; p < procs && base+p < ops; p++ {
				i := base + p
				t := 2*base + p
				if typ == "ok" {
					t += procs
				}
				f, v := "write", strconv.Itoa(i%1000)
				if i%3 == 0 {
					f = "read"
				}
				dst = append(dst, `{"process":`...)
				dst = strconv.AppendInt(dst, int64(p), 10)
				dst = append(dst, `,"type":"`+typ+`","f":"`+f+`","value":`+v+`,"time":`...)
				dst = strconv.AppendInt(dst, int64(t), 10)
				dst = append(dst, '}')
				for k := 0; k < pad; k++ {
					dst = append(dst, ' ')
				}
				dst = append(dst, '\n')
			}
		}
		return dst, base+procs < ops
	}
}

// TestStreamMillionOps reads a history of 1,000,000 operations (2,000,000
// events) from JSON Lines generated on the fly, and checks that the heap
// grows with the operations and not with the text: the same operations with
// four times the text take about the same memory. With -short it reads
// 250,000 operations.
func TestStreamMillionOps(t *testing.T) {
	ops := 1000000
	if testing.Short() {
		ops = 250000
	}
	read := func(n, pad int) (*history.History, uint64, int64, time.Duration) {
		g := &genReader{next: eventLines(n, pad)}
		var h *history.History
		var err error
		start := time.Now()
		grew := heapPeak(func() { h, err = format.Read("big.jsonl", g, "") })
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Ops) != n || h.Processes != 16 {
			t.Fatalf("%d ops in %d processes, want %d in 16", len(h.Ops), h.Processes, n)
		}
		return h, grew, g.read, took
	}
	h, grew, text, took := read(ops, 0)
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if o := h.Ops[ops-1]; o.Return == history.Infinity || o.Status != history.OK {
		t.Fatalf("last op %+v", o)
	}
	h = nil
	t.Logf("%d ops: %.0f MB of JSON Lines read in %v; heap peak +%.0f MB (%.0f bytes/op)",
		ops, float64(text)/1e6, took.Round(time.Millisecond), float64(grew)/1e6, float64(grew)/float64(ops))
	if perOp := grew / uint64(ops); perOp > 600 {
		t.Errorf("heap grew by %d bytes per operation, want at most 600", perOp)
	}

	const small = 100000
	_, g1, t1, _ := read(small, 0)
	_, g4, t4, _ := read(small, 3*72)
	t.Logf("%d ops: %.0f MB of text: heap +%.1f MB; %.0f MB of text: heap +%.1f MB",
		small, float64(t1)/1e6, float64(g1)/1e6, float64(t4)/1e6, float64(g4)/1e6)
	// The peak includes garbage not yet collected, which the garbage
	// collector's pacing lets reach about twice the live heap; a reader that
	// kept the text would grow with it, over four times.
	if t4 < 3*t1 || float64(g4) > 2*float64(g1)+8*mib {
		t.Errorf("heap grew by %d with %d bytes of text and by %d with %d bytes", g1, t1, g4, t4)
	}
}

// TestFastPathKeepsErrors checks that JSON Lines with a bad record among
// good ones still reports the exact line and message.
func TestFastPathKeepsErrors(t *testing.T) {
	var b bytes.Buffer
	g := &genReader{next: eventLines(1000, 0)}
	io.Copy(&b, g)
	text := b.String() + `{"process": 3, "type": "ok", "f": "write", "value": 1, "time": 99999, "value": 2}` + "\n"
	_, err := format.Read("h.jsonl", strings.NewReader(text), "")
	var ie *history.InputError
	if !errors.As(err, &ie) || ie.Line != 2001 || ie.Msg != `field "value" appears twice (also at line 2001)` {
		t.Fatalf("got %v", err)
	}
}

// BenchmarkReadJSONL reads 100,000 operations of JSON Lines generated on the
// fly (the generator's own cost is included; BenchmarkGenerateJSONL shows it).
func BenchmarkReadJSONL(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := format.Read("big.jsonl", &genReader{next: eventLines(100000, 0)}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateJSONL(b *testing.B) {
	for i := 0; i < b.N; i++ {
		io.Copy(io.Discard, &genReader{next: eventLines(100000, 0)})
	}
}

// TestBigIntegersInValues checks that integers beyond 64 bits in values are
// kept exactly, in every reader.
func TestBigIntegersInValues(t *testing.T) {
	const big = "-123456789012345678901234567890"
	want, _ := history.BigIntValue(big)
	for _, c := range []struct{ file, text string }{
		{"h.jsonl", `{"process": 0, "type": "invoke", "f": "write", "value": ` + big + `}` + "\n"},
		{"h.json", `[{"process": 0, "type": "invoke", "f": "write", "value": ` + big + `}]`},
		{"h.json", `[["A", "write", ` + big + `, 0, 1]]`},
		{"h.edn", `{:process 0, :type :invoke, :f :write, :value ` + big + `N}`},
		{"h.log", "INFO  jepsen.util - 0\t:invoke\t:write\t" + big + "\n"},
		{"h.hist", "A: w(" + big + ") [0, 1]\n"},
	} {
		h, err := format.Read(c.file, strings.NewReader(c.text), "")
		if err != nil {
			t.Errorf("%s: %v", c.text, err)
			continue
		}
		if got := h.Ops[0].Value; got != want {
			t.Errorf("%s: value %#v, want %#v", c.text, got, want)
		}
	}
}

// TestLongLineUnderTheLimit reads lines longer than the read buffer but
// within RecordLimit, with "\r\n" endings, in every line format.
func TestLongLineUnderTheLimit(t *testing.T) {
	long := strings.Repeat("ab", 700000)
	for _, c := range []struct {
		file, text string
		ops        int
	}{
		{"h.jsonl", `{"process": 0, "type": "invoke", "f": "write", "value": "` + long + `"}` + "\r\n" + `{"process": 0, "type": "ok", "f": "write"}` + "\r\n", 1},
		{"h.log", "INFO  jepsen.util - 0\t:invoke\t:write\t\"" + long + "\"\r\nINFO  jepsen.util - 0\t:ok\t:write\t\"" + long + "\"\r\n", 1},
		{"h.hist", "A: w(\"" + long + "\") [0, 1]\r\nB: r(\"" + long + "\") [2, 3]\r\n", 2},
	} {
		h, err := format.Read(c.file, strings.NewReader(c.text), "")
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if v, _ := h.Ops[0].Value.Str(); v != long || h.Ops[0].Status != history.OK || len(h.Ops) != c.ops || h.Ops[c.ops-1].Line != c.ops {
			t.Errorf("%s: got %d ops, first %s with a value of %d bytes", c.file, len(h.Ops), h.Ops[0].Status, len(v))
		}
	}
}

// orderOf is the order a table case asks for: by times when its name ends
// so, else the default.
func orderOf(name string) string {
	if strings.HasSuffix(name, ", by times") {
		return "times"
	}
	return ""
}
