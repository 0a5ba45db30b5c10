package format

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// researchCase is one of the research checkers' histories, as their
// repositories ship it, and what reading it must give.
type researchCase struct {
	file     string
	format   string
	txns     int // transactions, aborted ones included
	aborted  int
	sessions int
	// first is the value of the first operation of session "0"
	// (session "1" for dbcop, whose sessions count from 1).
	first string
}

var researchCases = []researchCase{
	{"awdit/causal-fully-ser.txt", AWDITTest, 4, 0, 3, `[[w 0 0] [w 1 1]]`},
	{"awdit/causal-long-fork.txt", AWDITTest, 5, 0, 3, `[[w 0 0] [w 1 0]]`},
	{"awdit/causal-lost-update.txt", AWDITTest, 3, 0, 3, `[[w 0 0]]`},
	{"awdit/none-hb-cycle.txt", AWDITTest, 4, 0, 2, `[[r 1 1]]`},
	{"awdit/read-atomic-biswas-enea.txt", AWDITTest, 4, 0, 3, `[[w 0 1]]`},
	{"awdit/read-atomic-test-ra.txt", AWDITTest, 8, 0, 5, `[[w 0 0] [w 1 0] [w 2 0] [w 3 0] [w 4 0]]`},
	{"awdit/read-committed-biswas-enea.txt", AWDITTest, 4, 0, 4, `[[w 0 1] [w 1 1]]`},
	{"awdit/read-committed-generated-l4e10sqrt.txt", AWDITTest, 8, 0, 4, `[[r 3 0]]`},
	{"awdit/read-committed-non-repeatable-read.txt", AWDITTest, 3, 0, 3, `[[w 0 0]]`},
	{"awdit/read-committed-test-rc.txt", AWDITTest, 8, 0, 5, `[[w 0 0] [w 1 0] [w 2 0] [w 3 0] [w 4 0]]`},
	// IsoVista's recorded violations write the initial values as a first
	// transaction, so reads of 0 read from it.
	{"isovista/pg_ser_bug.txt", Plume, 21, 0, 21, `[[w 1 0] [w 2 0] [w 3 0] [w 4 0] [w 5 0] [w 6 0] [w 7 0] [w 8 0] [w 9 0] [w 10 0]]`},
	{"isovista/yugabyte_tcc.txt", Plume, 21, 0, 3, ""},
	// dbcop's documented examples, and the original dbcop's events.
	{"dbcop/write-skew.json", DBCop, 3, 0, 2, `[[w 0 1] [w 1 2]]`},
	{"dbcop/write-read-bare.json", DBCop, 3, 1, 2, `[[w 0 1]]`},
	{"dbcop/original.json", DBCop, 4, 2, 2, `[[w 0 1] [r 1 nil]]`},
	{"dbcop/write-skew.hist", DBCopHist, 4, 1, 2, `[[w x 1] [w y 2]]`},
}

// TestResearchFormats reads the research checkers' own histories,
// detecting each format by content, and checks what they hold.
func TestResearchFormats(t *testing.T) {
	for _, tc := range researchCases {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "research", tc.file)
			res := readResearch(t, path)
			if res.Format != tc.format || res.Chosen != ByContent {
				t.Errorf("read as %s (%s), want %s by content", res.Format, res.Chosen, tc.format)
			}
			h := res.History
			c := h.Counts()
			if len(h.Ops) != tc.txns || c.Fail != tc.aborted || h.Clients != tc.sessions {
				t.Errorf("%d transactions (%d aborted) in %d sessions, want %d (%d) in %d", len(h.Ops), c.Fail, h.Clients, tc.txns, tc.aborted, tc.sessions)
			}
			if m, _ := h.Meta["model"].Str(); m != "rw-register" {
				t.Errorf("model %q, want rw-register", m)
			}
			first := "0"
			if tc.format == DBCop || tc.format == DBCopHist {
				first = "1"
			}
			if tc.first != "" {
				if got := firstOf(h, first); got != tc.first {
					t.Errorf("session %s's first transaction is %s, want %s", first, got, tc.first)
				}
			}
		})
	}
}

func readResearch(t *testing.T, path string) Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// No extension names these formats: the content must.
	res, err := ReadResult("history", bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// firstOf is the value of the first operation of the session (client).
func firstOf(h *history.History, client string) string {
	for _, o := range h.Ops {
		if o.Client == client {
			return o.Value.String()
		}
	}
	return "none"
}

// TestPlumeInitialAndAborted checks the text format's rules: a read of 0
// is a read of the initial state (nil) unless some transaction writes 0
// to the key; a transaction's lines need not be adjacent; consecutive
// aborted writes of a session are one aborted transaction, and aborted
// reads are left out.
func TestPlumeInitialAndAborted(t *testing.T) {
	src := strings.Join([]string{
		"w(1,5,0,0)",
		"r(2,0,1,1)",  // key 2 has no write of 0: the initial state
		"r(3,0,1,1)",  // key 3 has one: a read of that write
		"w(1,6,0,-1)", // aborted
		"w(2,7,0,-1)", // the same aborted transaction
		"r(1,5,0,-1)", // an aborted read: left out
		"w(3,0,0,2)",
		"r(1,5,1,1)", // transaction 1 again, after others
		"",
	}, "\n")
	h, err := Read("h", strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range h.Ops {
		got[o.Client+" "+o.Status.String()+" "+o.Value.String()] = "ok"
	}
	for _, want := range []string{
		`0 ok [[w 1 5]]`,
		`1 ok [[r 2 nil] [r 3 0] [r 1 5]]`,
		`0 fail [[w 1 6] [w 2 7]]`,
		`0 ok [[w 3 0]]`,
	} {
		if got[want] == "" {
			t.Errorf("missing %s; got %v", want, got)
		}
	}
	if len(h.Ops) != 4 {
		t.Errorf("%d transactions, want 4", len(h.Ops))
	}
}

// TestResearchFormatErrors checks that bad input is refused with its line
// and what was expected.
func TestResearchFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		format, src, want string
	}{
		{Plume, "w(1,2,0,0)\nw(1,x,0,0)\n", `h:2: the value x is not a non-negative integer`},
		{Plume, "w(1,2,0,0)\nw(1,2,0)\n", `h:2: expected r(key,value,session,txn)`},
		{Plume, "w(1,2,0,0)\nw(1,2,0,0,1)\n", `h:2: expected r(key,value,session,txn) or w(key,value,session,txn), with non-negative integers (txn -1: an aborted write), got w(1,2,0,0,1): too many fields`},
		{Plume, "w(1,2,0,0)\nw(1,3,1,0)\n", `h:2: transaction 0 is in session 1 here and in session 0 on line 1`},
		{Plume, "w(1,2,0,0)\nx(1,3,1,0)\n", `h:2: expected r(key,value`},
		{Plume, "w(1,-2,0,0)\n", `h:1: the value -2 is not a non-negative integer`},
		{AWDITTest, "w 0 0\n-----\nr 0 x\n", `h:3: the value x is not a non-negative integer`},
		{AWDITTest, "w 0 0\n=====\nread 0 0\n", `h:3: expected r KEY VALUE or w KEY VALUE`},
		{AWDITTest, "w 0 0 0\n", `h:1: expected r KEY VALUE`},
	} {
		_, err := Read("h", strings.NewReader(tc.src), tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want %q", tc.format, tc.src, err, tc.want)
		}
	}
}

// TestResearchRoundTrip converts each research history to every format
// that holds it and back: the transactions, their sessions and outcomes
// must come back the same.
func TestResearchRoundTrip(t *testing.T) {
	for _, tc := range researchCases {
		h := readResearch(t, filepath.Join("testdata", "research", tc.file)).History
		for _, to := range []string{EDN, JSONL, JSON, Plume, AWDITTest, DBCop, DBCopHist, DBCopBincode} {
			var buf bytes.Buffer
			err := Write(&buf, h, to)
			if (to == Plume || to == AWDITTest || to == DBCopBincode) && tc.format == DBCopHist {
				// Named variables: these formats' keys are integers.
				if err == nil || !strings.Contains(err.Error(), "is not a non-negative integer") && !strings.Contains(err.Error(), "committed transactions only") {
					t.Errorf("%s as %s: error %v, want a refusal of the key", tc.file, to, err)
				}
				continue
			}
			if to == AWDITTest && tc.aborted > 0 {
				// AWDIT's tests hold committed transactions only.
				if err == nil || !strings.Contains(err.Error(), "committed transactions only") {
					t.Errorf("%s as %s: error %v, want a refusal of aborted transactions", tc.file, to, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s as %s: %v", tc.file, to, err)
				continue
			}
			back, err := Read("out", bytes.NewReader(buf.Bytes()), to)
			if err != nil {
				t.Errorf("%s as %s: reading back: %v\n%s", tc.file, to, err, buf.String())
				continue
			}
			if got, want := sessionText(back, to), sessionText(h, to); got != want {
				t.Errorf("%s as %s: read back\n%s\nwant\n%s", tc.file, to, got, want)
			}
			// Written again, the output is the same.
			var again bytes.Buffer
			if err := Write(&again, back, to); err != nil || again.String() != buf.String() {
				t.Errorf("%s as %s: written twice differs (%v):\n%s\n%s", tc.file, to, err, buf.String(), again.String())
			}
		}
	}
}

// sessionText describes a history by session: each session's
// transactions in order, with their outcomes. Sessions are numbered in
// order of first appearance, as the formats renumber them; a format
// whose initial writes are explicit turns reads of nil into reads of 0,
// and Plume's text, which marks aborted writes but not their
// transactions, makes one of a session's consecutive aborted ones.
func sessionText(h *history.History, to string) string {
	index := map[string]int{}
	var lines []string
	for _, o := range h.Ops {
		s, ok := index[o.Client]
		if !ok {
			s = len(index)
			index[o.Client] = s
			lines = append(lines, "")
		}
		v := o.Value.String()
		if to == AWDITTest {
			v = strings.ReplaceAll(v, " nil]", " 0]")
		}
		if to == Plume && o.Status == history.Fail && strings.HasSuffix(lines[s], "]]") && strings.Contains(lines[s], " fail[") &&
			strings.LastIndex(lines[s], " fail[") > strings.LastIndex(lines[s], " ok[") {
			lines[s] = strings.TrimSuffix(lines[s], "]") + " " + strings.TrimPrefix(v, "[")
			continue
		}
		lines[s] += " " + o.Status.String() + v
	}
	return strings.Join(lines, "\n")
}

// TestResearchExtensions checks that dbcop's files are read as dbcop's
// under the extensions they share with other formats: .json (Jepsen's
// JSON) and .hist (the notation).
func TestResearchExtensions(t *testing.T) {
	for file, want := range map[string]string{"dbcop/write-skew.json": DBCop, "dbcop/write-skew.hist": DBCopHist} {
		res, err := ReadResult(file, mustOpen(t, filepath.Join("testdata", "research", file)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != want || res.Chosen != ByExtension {
			t.Errorf("%s: read as %s (%s), want %s by extension", file, res.Format, res.Chosen, want)
		}
	}
	// The notation is still the notation.
	if res, err := ReadResult("h.hist", strings.NewReader("A: w(1) [0, 3]\n"), Options{}); err != nil || res.Format != Notation {
		t.Errorf("notation .hist: read as %s, %v", res.Format, err)
	}
}

func mustOpen(t *testing.T, path string) *bytes.Reader {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// TestDBCopFastAgrees checks that the fast reader of dbcop's JSON reads
// what the decoder reads, or gives the document to it: on dbcop's own
// examples, on written histories, and on variations of them (spacing,
// compact events, fields in another order, other fields, and breakage).
func TestDBCopFastAgrees(t *testing.T) {
	var docs []string
	files, _ := filepath.Glob(filepath.Join("testdata", "research", "dbcop", "*.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		docs = append(docs, string(b))
	}
	h, err := Read("h", bytes.NewReader(researchHistory(200)), Plume)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, h, DBCop); err != nil {
		t.Fatal(err)
	}
	docs = append(docs, buf.String(),
		`[[{"committed": true, "events": [["w", 1, 2], ["r", 1, null]]}], [{"events": [{"Read": {"version": 2, "variable": 1}}], "success": false}]]`,
		`{"data": [[{"events": [], "committed": true}]], "params": {"x": [1, {"y": "a\"b"}]}, "info": "i"}`,
		`[[{"events": [["w", 1, 2]], "committed": true}]] x`,
		`[[{"events": [["w", 1, null]], "committed": true}]]`,
		`[[{"events": [["w", -1, 2]], "committed": true}]]`,
		`[[{"events": [["w", 01, 2]], "committed": true}]]`,
		`[[{"events": [["w", 1.5, 2]], "committed": true}]]`,
		`[[{"events": [["w", "x", 2]], "committed": true}]]`,
		`[[{"events": [["w", 1, 2]]}]]`,
		`[[{"events": [{"Read": {"variable": 1}}], "committed": true}]]`,
		`{"params": {}, "data": [[{"events": [["r", 1, 0]], "committed": true}]]`,
	)
	fast := 0
	for _, d := range docs {
		slow, serr := readDBCopDecoded([]byte(d))
		b, ok := (&dbcopFast{src: []byte(d)}).read()
		if !ok {
			continue // read by the decoder
		}
		fast++
		fh, ferr := b.build()
		if serr != nil || ferr != nil {
			t.Errorf("%.80s: fast read it (%v) where the decoder says %v", d, ferr, serr)
			continue
		}
		if got, want := sessionText(fh, DBCop), sessionText(slow.History, DBCop); got != want {
			t.Errorf("%.80s: fast read\n%s\nwant\n%s", d, got, want)
		}
	}
	// dbcop's two new examples, the written history and the first two
	// variations are the common form.
	if fast < 5 {
		t.Errorf("the fast reader read %d documents, want at least 5", fast)
	}
}

// TestSessionBuildParts checks that building a long history's values in
// parts gives the history built in one.
func TestSessionBuildParts(t *testing.T) {
	src := researchHistory(20_000)
	var hs []*history.History
	for _, parts := range []int{1, 3} {
		p := plumeReader{b: &sessionBuilder{zeroIsInit: true, parts: parts}, sessions: map[int64]int32{}, byID: map[int64]int32{},
			last: -1, lastAborted: -1, lastSess: -1}
		lr := newLineReader(bytes.NewReader(src), RecordLimit)
		for {
			line, err := lr.next()
			if err != nil {
				break
			}
			l, err := parsePlumeLine(line)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.add(l, lr.line); err != nil {
				t.Fatal(err)
			}
		}
		p.group()
		h, err := p.b.build()
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if len(hs[0].Ops) != 20_000 || !reflect.DeepEqual(hs[0].Ops, hs[1].Ops) {
		t.Error("built in parts, the history differs")
	}
	// The history is the one FromOps makes of its operations.
	for _, h := range append(hs, readResearch(t, filepath.Join("testdata", "research", "dbcop", "original.json")).History) {
		in := make([]history.Op, len(h.Ops))
		for i, o := range h.Ops {
			o.Process, o.Times = 0, history.Span{}
			in[i] = o
		}
		want, err := history.FromOps(in)
		if err != nil {
			t.Fatal(err)
		}
		want.Meta, want.Warnings, want.SessionsOnly = h.Meta, append(want.Warnings, NoRealTime), true
		if !reflect.DeepEqual(h, want) {
			t.Errorf("the history differs from FromOps's:\n%+v\n%+v", h, want)
		}
	}
}

// TestDBCopBincode reads a history written as the original dbcop's
// binary file, its failed events and transactions included, and refuses
// one cut short.
func TestDBCopBincode(t *testing.T) {
	le := func(ns ...uint64) []byte {
		var b []byte
		for _, n := range ns {
			b = binary.LittleEndian.AppendUint64(b, n)
		}
		return b
	}
	var src []byte
	src = append(src, le(7, 2, 2, 3, 5)...)
	for _, s := range []string{"info", "start", "end"} {
		src = append(append(src, le(uint64(len(s)))...), s...)
	}
	event := func(write bool, k, v uint64, ok bool) []byte {
		b := []byte{0}
		if write {
			b[0] = 1
		}
		b = append(b, le(k, v)...)
		if ok {
			return append(b, 1)
		}
		return append(b, 0)
	}
	src = append(src, le(2)...) // sessions
	src = append(src, le(1)...) // session 1: one transaction
	src = append(src, le(2)...)
	src = append(append(append(src, event(true, 0, 1, true)...), event(false, 1, 0, true)...), 1)
	src = append(src, le(2)...) // session 2: two transactions
	src = append(src, le(2)...)
	src = append(append(append(src, event(false, 0, 1, true)...), event(true, 1, 2, false)...), 1)
	src = append(src, le(1)...)
	src = append(append(src, event(true, 1, 3, true)...), 0)
	h, err := Read("history.bincode", bytes.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range h.Ops {
		got = append(got, o.Client+" "+o.Status.String()+" "+o.Value.String())
	}
	want := []string{"1 ok [[w 0 1] [r 1 nil]]", "2 ok [[r 0 1]]", "2 fail [[w 1 2]]", "2 fail [[w 1 3]]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, cut := range []int{3, 50, len(src) - 1} {
		if _, err := Read("history.bincode", bytes.NewReader(src[:cut]), ""); err == nil || !strings.Contains(err.Error(), "cut short") {
			t.Errorf("cut at %d: error %v, want one saying it is cut short", cut, err)
		}
	}
	if _, err := Read("history.bincode", bytes.NewReader(append(src, 0)), ""); err == nil || !strings.Contains(err.Error(), "more after the last session") {
		t.Errorf("a byte more: error %v", err)
	}
}
