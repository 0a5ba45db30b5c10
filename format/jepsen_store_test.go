package format

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// plainEDN is a small Jepsen history as op maps; the cases below write
// it the other ways Jepsen and its users store it.
const plainEDN = `{:process 0, :type :invoke, :f :write, :value 1, :index 0}
{:process 0, :type :ok, :f :write, :value 1, :index 1}
{:process 1, :type :invoke, :f :read, :value nil, :index 2}
{:process 1, :type :ok, :f :read, :value 1, :index 3}
`

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestJepsenForms checks that a history written as Jepsen writes it reads
// as the plain op maps: gzipped (by its magic bytes, whatever its name),
// as tagged op records, with an unknown tag on a value.
func TestJepsenForms(t *testing.T) {
	want, err := Read("h.edn", strings.NewReader(plainEDN), "")
	if err != nil {
		t.Fatal(err)
	}
	tagged := strings.ReplaceAll(plainEDN, "{:process", "#jepsen.history.Op{:process")
	for _, tc := range []struct{ name, file, text string }{
		{"gzip, .edn.gz", "history.edn.gz", gzipped(t, plainEDN)},
		{"gzip, no extension", "history", gzipped(t, plainEDN)},
		{"op records", "history.edn", tagged},
		{"op records, gzip", "history.edn.gz", gzipped(t, tagged)},
		{"op records as a vector", "h.edn", "[" + strings.ReplaceAll(tagged, "\n", " ") + "]"},
	} {
		got, err := Read(tc.file, strings.NewReader(tc.text), "")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if err := history.Equivalent(got, want); err != nil {
			t.Errorf("%s: not the plain history: %v", tc.name, err)
		}
	}
	h, err := Read("h.edn", strings.NewReader(`{:process 0, :type :invoke, :f :write, :value #inst "2026-12-01", :index 0}`+"\n"+
		`{:process 0, :type :ok, :f :write, :value #inst "2026-12-01", :index 1}`), "")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := h.Ops[0].Value.Str(); v != "2026-12-01" {
		t.Errorf("an unknown tag's value reads as %s, want the string it tags", h.Ops[0].Value)
	}
	if _, err := Read("h.gz", strings.NewReader("\x1f\x8bnot gzip"), ""); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("a broken gzip input: %v", err)
	}
}
