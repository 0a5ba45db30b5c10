package format

import (
	"bytes"
	"strings"
	"testing"
)

// TestWrappedFastAgrees checks the fast reading of a wrapper object (a
// history with its settings, as histcheck writes it) against the exact
// reader: the same history, settings included, or the same error; and
// that the usual wrapper is read the fast way.
func TestWrappedFastAgrees(t *testing.T) {
	var docs []string
	for name, h := range randomHistories(t) {
		var buf bytes.Buffer
		if err := Write(&buf, h, JSON); err != nil {
			t.Fatal(err)
		}
		doc := buf.String()
		if !strings.HasPrefix(strings.TrimSpace(doc), "{") {
			continue
		}
		if _, ok := newFastJSON().wrapped([]byte(doc)); !ok && len(h.Ops) > 0 && !strings.Contains(doc, `"call"`) {
			t.Errorf("%s: the wrapper histcheck writes is not read the fast way", name)
		}
		docs = append(docs, doc)
	}
	events := `[{"process": 0, "type": "invoke", "f": "write", "value": 1},
 {"process": 0, "type": "ok", "f": "write", "value": 1}]`
	docs = append(docs,
		`{"history": `+events+`}`,
		`{"history": `+events+`, "model": "register", "init": 0}`,
		`{"init": {"a": [1, 2.5, null, true]}, "history": `+events+`}`,
		`{"init": 0, "init": 1, "history": `+events+`}`,
		`{"history": `+events+`, "history": `+events+`}`,
		`{"history": []}`,
		`{"history": {}}`,
		`{"history": [1, 2]}`,
		`{"model": "register"}`,
		`{}`,
		`{"init": 1e999, "history": `+events+`}`,
		`{"init": 123456789012345678901234567890, "history": `+events+`}`,
		`{"history": `+events+`} x`,
		`{"history": `+events+`,}`,
		"{\n\"init\"\n:\n0\n,\n\"history\"\n:\n"+events+"\n}\n",
		`{"history": [{"process": 0, "type": "invoke", "f": "read", "call": 1}]}`,
	)
	for _, doc := range docs {
		fh, ferr := readJSONWith([]byte(doc), formAuto, true)
		sh, serr := readJSONWith([]byte(doc), formAuto, false)
		sameResult(t, fh, sh, ferr, serr)
	}
}
