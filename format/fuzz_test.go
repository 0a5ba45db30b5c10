package format

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// The fuzz targets below share one invariant: whatever the bytes, Read
// returns quickly and either a history that passes history.Validate (and
// survives a round trip through EDN) or an *history.InputError that names
// the file and, unless the input as a whole is at fault, a line. Their seed
// corpora are in testdata/fuzz/<target>; inputs the fuzzer found are kept
// there as regression cases.

// wholeInputErrors are the messages about the input as a whole, which have
// no line to name.
var wholeInputErrors = []string{
	"empty input",
	"no history lines",
	"no operations",
	"cannot tell the format",
	"input longer than",
	"reading gzip",
	"the input does not fit in memory",
}

func checkRead(t *testing.T, name, forced string, data []byte) {
	t.Helper()
	h, err := Read(name, bytes.NewReader(data), forced)
	if err != nil {
		var ie *history.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("error %v (%T) is not an *history.InputError", err, err)
		}
		if ie.File != name {
			t.Fatalf("error %q names file %q, want %q", err, ie.File, name)
		}
		if ie.Line < 0 || ie.Op < 0 {
			t.Fatalf("error %q has a negative place", err)
		}
		if ie.Line == 0 && ie.Op == 0 && !hasPrefixIn(ie.Msg, wholeInputErrors) {
			t.Fatalf("error %q names no line", err)
		}
		if ie.Msg == "" || strings.ContainsRune(ie.Msg, '\n') {
			t.Fatalf("error message %q is empty or spans lines", ie.Msg)
		}
		return
	}
	if err := h.Validate(); err != nil {
		t.Fatalf("invalid history: %v", err)
	}
	for i := range h.Ops {
		if h.Ops[i].Line <= 0 {
			t.Fatalf("operation %d (%s) has no line", i, h.Ops[i].Label())
		}
		if h.Ops[i].F == "" {
			t.Fatalf("operation %d has no name", i)
		}
	}
	checkRoundTrip(t, h)
}

func hasPrefixIn(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// checkRoundTrip writes h as EDN, which carries every value, and reads it
// back.
func checkRoundTrip(t *testing.T, h *history.History) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, h, EDN); err != nil {
		if beforeZero(h) && strings.Contains(err.Error(), "count time up from 0") {
			return // refused, as events cannot carry it
		}
		t.Fatalf("writing EDN: %v", err)
	}
	back, err := ReadWith("out.edn", &buf, Options{Order: h.Order.String()})
	if err != nil {
		t.Fatalf("reading back the EDN written: %v\n%s", err, buf.String())
	}
	if err := history.Equivalent(h, back, reservedNames()...); err != nil {
		t.Fatalf("round trip: %v\n%s", err, buf.String())
	}
	delete(back.Meta, OrderKey)
	if !reflect.DeepEqual(back.Meta, h.Meta) && len(h.Meta)+len(back.Meta) > 0 {
		t.Fatalf("round trip: meta %v, want %v", back.Meta, h.Meta)
	}
}

// beforeZero reports whether some operation of h is called before time 0.
func beforeZero(h *history.History) bool {
	for _, o := range h.Ops {
		if h.Order == history.TimeOrder && o.Call < 0 || h.Order == history.FileOrder && h.Timed && o.Times.Call < 0 {
			return true
		}
	}
	return false
}

// reservedNames lists the field names a round trip may drop.
func reservedNames() []string {
	var out []string
	for name := range reserved {
		out = append(out, name)
	}
	return out
}

// sameResult checks that the fast and the exact JSON paths agree: the same
// history, or the same error.
func sameResult(t *testing.T, fastH, slowH *history.History, fastErr, slowErr error) {
	t.Helper()
	switch {
	case fastErr != nil || slowErr != nil:
		if fastErr == nil || slowErr == nil || fastErr.Error() != slowErr.Error() {
			t.Fatalf("fast path: %v\nexact path: %v", fastErr, slowErr)
		}
	case !reflect.DeepEqual(fastH, slowH):
		t.Fatalf("fast path: %+v\nexact path: %+v", fastH, slowH)
	}
}

func FuzzJSON(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRead(t, "h.json", JSON, data)
		if checkUTF8(data) == nil {
			fh, ferr := readJSONWith(data, formAuto, true)
			sh, serr := readJSONWith(data, formAuto, false)
			sameResult(t, fh, sh, ferr, serr)
		}
	})
}

func FuzzJSONL(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRead(t, "h.jsonl", JSONL, data)
		fh, ferr := readJSONLWith(bytes.NewReader(data), true)
		sh, serr := readJSONLWith(bytes.NewReader(data), false)
		sameResult(t, fh, sh, ferr, serr)
	})
}

func FuzzEDN(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h.edn", EDN, data) })
}

func FuzzJepsenLog(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h.log", JepsenLog, data) })
}

func FuzzNotation(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h.hist", Notation, data) })
}

func FuzzOps(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h.json", Ops, data) })
}

func FuzzTuples(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h.json", Tuples, data) })
}

// FuzzWrapper reads without a format name or extension, so that detection
// decides; its seeds are wrapper objects in JSON and EDN.
func FuzzWrapper(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) { checkRead(t, "h", "", data) })
}

// FuzzEDNStream checks the streaming EDN reader against itself and the
// whole-document reader it replaced: ednFast and ednParser give the same
// history or the same error, and an input the whole-document reader takes
// reads as the same history.
func FuzzEDNStream(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		fh, ferr := readEDN(bytes.NewReader(data), nil, true)
		sh, serr := readEDN(bytes.NewReader(data), nil, false)
		sameResult(t, fh, sh, ferr, serr)
		if checkUTF8(data) != nil {
			return
		}
		wh, werr := readEDNWhole(data)
		switch {
		case werr == nil && ferr == nil:
			if !reflect.DeepEqual(fh, wh) {
				t.Fatalf("stream: %+v\nwhole: %+v", fh, wh)
			}
		case werr == nil && !strings.Contains(ferr.Error(), "second :history entry"):
			t.Fatalf("the stream refuses what the whole-document reader takes: %v", ferr)
		}
	})
}
