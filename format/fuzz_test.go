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
		t.Fatalf("writing EDN: %v", err)
	}
	back, err := Read("out.edn", &buf, "")
	if err != nil {
		t.Fatalf("reading back the EDN written: %v\n%s", err, buf.String())
	}
	if len(back.Ops) != len(h.Ops) || back.Processes != h.Processes || back.Clients != h.Clients {
		t.Fatalf("round trip: %d ops, %d processes, %d clients; want %d, %d, %d",
			len(back.Ops), back.Processes, back.Clients, len(h.Ops), h.Processes, h.Clients)
	}
	for i := range h.Ops {
		x, y := &h.Ops[i], &back.Ops[i]
		if x.Process != y.Process || x.Client != y.Client || x.F != y.F || x.Value != y.Value || x.Key != y.Key ||
			x.Version != y.Version || x.Token != y.Token || x.Call != y.Call || x.Return != y.Return ||
			x.Status != y.Status || x.Index != y.Index || !reflect.DeepEqual(kept(x.Extra), kept(y.Extra)) {
			t.Fatalf("round trip: op %d:\n got %+v\nwant %+v\n%s", i, *y, *x, buf.String())
		}
	}
	if !reflect.DeepEqual(back.Meta, h.Meta) && len(h.Meta)+len(back.Meta) > 0 {
		t.Fatalf("round trip: meta %v, want %v", back.Meta, h.Meta)
	}
}

// kept returns the extra fields an event can carry: those that do not
// collide with the names Jepsen events interpret.
func kept(fs []history.Field) []history.Field {
	var out []history.Field
	for _, f := range fs {
		if !reserved[f.Name] {
			out = append(out, f)
		}
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
