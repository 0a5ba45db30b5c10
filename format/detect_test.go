package format_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// The history H1 in every readable encoding.
var h1Encodings = map[string]string{
	"json": `[{"process": "A", "type": "invoke", "f": "write", "value": 1, "time": 0},
 {"process": "B", "type": "invoke", "f": "read", "value": null, "time": 2},
 {"process": "B", "type": "ok", "f": "read", "value": 0, "time": 4},
 {"process": "C", "type": "invoke", "f": "read", "value": null, "time": 6},
 {"process": "C", "type": "ok", "f": "read", "value": 1, "time": 8},
 {"process": "A", "type": ":ok", "f": ":write", "value": 1, "time": 10}]`,
	"jsonl": `{"process": "A", "type": "invoke", "f": "write", "value": 1, "time": 0}
{"process": "B", "type": "invoke", "f": "read", "value": null, "time": 2}
{"process": "B", "type": "ok", "f": "read", "value": 0, "time": 4}
{"process": "C", "type": "invoke", "f": "read", "value": null, "time": 6}
{"process": "C", "type": "ok", "f": "read", "value": 1, "time": 8}
{"process": "A", "type": "ok", "f": "write", "value": 1, "time": 10}
`,
	"ops": `[{"process": "A", "f": "write", "value": 1, "call": 0, "return": 10},
 {"process": "B", "f": "read", "value": 0, "call": 2, "return": 4},
 {"process": "C", "f": "read", "value": 1, "call": 6, "return": 8}]`,
	"tuples": `[["A", "w", 1, 0, 10], ["B", "r", 0, 2, 4], ["C", "r", 1, 6, 8]]`,
	"edn": `; H1
{:process :A, :type :invoke, :f :write, :value 1, :time 0}
{:process :B, :type :invoke, :f :read, :value nil, :time 2}
{:process :B, :type :ok, :f :read, :value 0, :time 4}
{:process :C, :type :invoke, :f :read, :value nil, :time 6}
{:process :C, :type :ok, :f :read, :value 1, :time 8}
{:process :A, :type :ok, :f :write, :value 1, :time 10}
`,
	"edn-list": `({:process "A", :type :invoke, :f :write, :value 1, :time 0}
 {:process "B", :type :invoke, :f :read, :value nil, :time 2}
 {:process "B", :type :ok, :f :read, :value 0, :time 4}
 {:process "C", :type :invoke, :f :read, :value nil, :time 6}
 {:process "C", :type :ok, :f :read, :value 1, :time 8}
 {:process "A", :type :ok, :f :write, :value 1, :time 10})`,
	"notation": "# H1\nA: w(1) [0, 10]\nB: r(0) [2, 4]\nC: r(1) [6, 8]\n",
	"wrapper":  `{"model": "register", "init": 0, "history": [["A", "w", 1, 0, 10], ["B", "r", 0, 2, 4], ["C", "r", 1, 6, 8]]}`,
	"edn-wrapper": `{:model "register", :init 0, :history [{:process :A, :type :invoke, :f :write, :value 1, :time 0}
 {:process :B, :type :invoke, :f :read, :value nil, :time 2}
 {:process :B, :type :ok, :f :read, :value 0, :time 4}
 {:process :C, :type :invoke, :f :read, :value nil, :time 6}
 {:process :C, :type :ok, :f :read, :value 1, :time 8}
 {:process :A, :type :ok, :f :write, :value 1, :time 10}]}`,
}

func checkH1(t *testing.T, what string, h *history.History) {
	t.Helper()
	var got []string
	for _, o := range h.Ops {
		got = append(got, o.Label()+" "+o.Status.String()+" ["+itoa64(o.Call)+","+itoa64(o.Return)+"]")
	}
	want := []string{"A:w(1) ok [0,10]", "B:r(0) ok [2,4]", "C:r(1) ok [6,8]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// TestDetect reads H1 in every encoding by content alone (a .txt name and
// no name), by its own extension, and with the format named.
func TestDetect(t *testing.T) {
	ext := map[string]string{"json": ".json", "jsonl": ".jsonl", "ops": ".json", "tuples": ".json", "edn": ".edn",
		"edn-list": ".edn", "notation": ".hist", "wrapper": ".json", "edn-wrapper": ".edn"}
	forced := map[string]string{"json": "json", "jsonl": "jsonl", "ops": "ops", "tuples": "tuples", "edn": "edn",
		"edn-list": "edn", "notation": "notation", "wrapper": "tuples", "edn-wrapper": "edn"}
	for enc, text := range h1Encodings {
		for _, c := range []struct{ name, forced string }{
			{"h1.txt", ""}, {"h1", ""}, {"h1" + ext[enc], ""}, {"h1.dat", forced[enc]},
		} {
			h, err := format.ReadWith(c.name, strings.NewReader(text), format.Options{Format: c.forced, Order: "times"})
			if err != nil {
				t.Errorf("%s as %s (format %q): %v", enc, c.name, c.forced, err)
				continue
			}
			checkH1(t, enc+" as "+c.name, h)
			if strings.Contains(enc, "wrapper") {
				want := map[string]history.Value{"model": history.StringValue("register"), "init": history.IntValue(0)}
				if !reflect.DeepEqual(h.Meta, want) {
					t.Errorf("%s: meta %v, want %v", enc, h.Meta, want)
				}
			}
		}
	}
}

func TestDetectJepsenLog(t *testing.T) {
	log := "2017-01-01 INFO  jepsen.core - Running test\n" +
		"INFO  jepsen.util - 0\t:invoke\t:write\t1\n" +
		"INFO  jepsen.util - 1   :invoke :read   nil\n" +
		"INFO  jepsen.util - :nemesis\t:info\t:start\t{\"n1\" [\"n2\"]}\n" +
		"INFO  jepsen.util - 1   :ok     :read   0\n" +
		"INFO  jepsen.util - 0\t:fail\t:write\t:timed-out\n" +
		"INFO  jepsen.util - 2\t:invoke\t:cas\t[1 2]\n"
	for _, name := range []string{"run.log", "run.txt", "run"} {
		h, err := format.Read(name, strings.NewReader(log), "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got []string
		for _, o := range h.Ops {
			got = append(got, o.Label()+" "+o.Status.String()+" "+itoa64(o.Call)+" line "+itoa64(int64(o.Line)))
		}
		want := []string{"0:w(1) fail 0 line 2", "1:r(0) ok 1 line 3", "2:cas(1, 2) info 5 line 7"} // calls are event positions
		if !reflect.DeepEqual(got, want) || h.Ignored != 1 {
			t.Errorf("%s: got %q ignored %d, want %q ignored 1", name, got, h.Ignored, want)
		}
	}
}

// TestWriteValues round-trips values JSON cannot carry through EDN, and the
// ones it can through JSON and JSON Lines, along with extra fields and meta.
func TestWriteValues(t *testing.T) {
	big, _ := history.BigIntValue("-123456789012345678901234567890")
	s, n := history.StringValue, history.IntValue
	common := []history.Value{
		history.NilValue, history.BoolValue(false), n(-7), big, history.FloatValue(0.25), history.FloatValue(1e300),
		s(""), s("nil"), s("a \"quoted\" \\ line\nbreak\ttab é ✓"), s(":kw"),
		history.ListValue(), history.ListValue(n(1), history.ListValue(s("x"), history.NilValue)),
		history.MapValue([]history.Value{s("a"), s("b")}, []history.Value{n(1), history.ListValue(n(2))}),
	}
	ednOnly := []history.Value{
		history.SetValue(n(3), n(1)), history.MapValue([]history.Value{n(1)}, []history.Value{s("one")}),
		history.FloatValue(posInf()), history.FloatValue(nan()),
	}
	build := func(vals []history.Value) *history.History {
		var ops []history.Op
		for i, v := range vals {
			ops = append(ops, history.Op{Client: []string{"A", "b c", "7", "007", "nil"}[i%5], F: []string{"write", "compare and set"}[i%2],
				Value: v, Key: v, Version: n(int64(i)), Token: s("t"), Call: int64(10 * i), Return: int64(10*i + 5), Status: history.OK, Index: int64(i),
				Extra: []history.Field{{Name: "node", Value: s("n1")}, {Name: "odd name", Value: v}}})
		}
		ops = append(ops, history.Op{Client: "A", F: "read", Value: history.NilValue, Call: 1000, Status: history.Info, Index: 99})
		h, err := history.FromOps(ops)
		if err != nil {
			t.Fatal(err)
		}
		h.Meta = map[string]history.Value{"model": s("register"), "init": n(0), "nil_read": s("any")}
		return h
	}
	for _, c := range []struct {
		to   string
		vals []history.Value
		meta bool
	}{
		{"edn", append(append([]history.Value(nil), common...), ednOnly...), true},
		{"json", common, true},
		{"jsonl", common, false},
	} {
		h := build(c.vals)
		var buf bytes.Buffer
		if err := format.Write(&buf, h, c.to); err != nil {
			t.Fatal(err)
		}
		back, err := format.ReadWith("out."+c.to, bytes.NewReader(buf.Bytes()), format.Options{Order: "times"})
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.to, err, buf.String())
		}
		sameOps(t, c.to, h, back)
		if got := back.Meta[format.OrderKey]; c.meta && got != history.StringValue("times") {
			t.Errorf("%s: order %v, want times", c.to, got)
		}
		delete(back.Meta, format.OrderKey)
		if c.meta && !reflect.DeepEqual(back.Meta, h.Meta) {
			t.Errorf("%s: meta %v, want %v", c.to, back.Meta, h.Meta)
		}
	}
	if err := format.Write(&bytes.Buffer{}, build(nil), "tuples"); err == nil {
		t.Error("writing tuples succeeded")
	}
}

func posInf() float64 { return math.Inf(1) }
func nan() float64    { return math.NaN() }

func TestByteOrderMarkAndDepth(t *testing.T) {
	for _, c := range []struct{ enc, name string }{
		{"jsonl", "h1.txt"}, {"jsonl", "h1.jsonl"}, {"json", "h1.json"}, {"notation", "h1.hist"}, {"edn", "h1.txt"},
	} {
		h, err := format.ReadWith(c.name, strings.NewReader("\ufeff"+h1Encodings[c.enc]), format.Options{Order: "times"})
		if err != nil {
			t.Fatalf("%s with a byte order mark: %v", c.name, err)
		}
		checkH1(t, c.name+" with a byte order mark", h)
	}
	_, err := format.Read("deep.json", strings.NewReader(strings.Repeat("[", 5000)), "")
	var ie *history.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "nested more than") {
		t.Errorf("deep JSON: got %v", err)
	}
	_, err = format.ReadFile("no/such/file.json", "")
	if !errors.As(err, &ie) || ie.File != "no/such/file.json" || !strings.Contains(ie.Msg, "cannot open") {
		t.Errorf("missing file: got %v", err)
	}
}
