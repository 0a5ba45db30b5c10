package format

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
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
	broken := gzipped(t, plainEDN)
	for _, bad := range []string{"\x1f\x8bnot gzip", broken[:len(broken)-6]} {
		if _, err := Read("h.edn", strings.NewReader(bad), ""); err == nil || !strings.Contains(err.Error(), "reading gzip") {
			t.Errorf("a broken gzip input: %v", err)
		}
	}
}

// TestJepsenTxt checks that the history lines of a Jepsen log, written as
// history.txt writes them, read as the same history as the log.
func TestJepsenTxt(t *testing.T) {
	log := "INFO  jepsen.util - 0\t:invoke\t:write\t4\n" +
		"INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n" +
		"INFO  jepsen.util - 1\t:invoke\t:cas\t[4 5]\n" +
		"INFO  jepsen.util - 0\t:ok\t:write\t4\n" +
		"INFO  jepsen.util - 1\t:fail\t:cas\t[4 5]\n" +
		"INFO  jepsen.util - 2\t:invoke\t:read\tnil\n" +
		"INFO  jepsen.util - 2\t:ok\t:read\t4\n"
	want, err := Read("h.log", strings.NewReader(log), "")
	if err != nil {
		t.Fatal(err)
	}
	txt := strings.ReplaceAll(log, "INFO  jepsen.util - ", "")
	withErrors := strings.Replace(txt, ":fail\t:cas\t[4 5]", ":fail\t:cas\t[4 5]\t:precondition-failed", 1)
	for name, text := range map[string]string{"plain": txt, "with an error column": withErrors, "CRLF": strings.ReplaceAll(txt, "\n", "\r\n")} {
		res, err := ReadResult("history.txt", strings.NewReader(text), Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.Format != JepsenTxt || !res.Events {
			t.Errorf("%s: read as %s (events %v)", name, res.Format, res.Events)
		}
		if err := history.Equivalent(res.History, want); err != nil {
			t.Errorf("%s: not the log's history: %v", name, err)
		}
	}
	if _, err := Read("history.txt", strings.NewReader("0\t:invoke\t:write\t4\n0\t:ok\t:write\t[4\n"), ""); err == nil {
		t.Error("a bad value read without an error")
	}
}

// TestRuns checks how a Jepsen store directory is read: a run directory
// gives its history, a test directory its newest run (or every run), and
// a directory with no run is an error that says so.
func TestRuns(t *testing.T) {
	store := t.TempDir()
	test := filepath.Join(store, "etcd")
	write := func(rel, text string) string {
		p := filepath.Join(test, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	older := write("20261130T000000.000Z/history.edn", plainEDN)
	newer := write("20261201T000000.000Z/history.edn.gz", gzipped(t, plainEDN))
	write("20261201T000000.000Z/results.edn", "{:valid? true}")
	write("notes/readme.txt", "not a run")
	if err := os.Symlink("20261130T000000.000Z", filepath.Join(test, "latest")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		all  bool
		want []string
	}{
		{filepath.Dir(older), false, []string{older}},
		{test, false, []string{newer}},
		{test, true, []string{older, newer}},
	} {
		got, err := Runs(tc.path, tc.all)
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Runs(%s, %v) = %v, %v; want %v", tc.path, tc.all, got, err, tc.want)
		}
	}
	if _, err := Runs(store, false); err == nil || !strings.Contains(err.Error(), "no Jepsen run") {
		t.Errorf("a store root: %v", err)
	}
	if got, _ := Expand([]string{"a.json", test, store}, false, false); strings.Join(got, ",") != strings.Join([]string{"a.json", newer, store}, ",") {
		t.Errorf("Expand = %v", got)
	}
	if _, err := ReadFile(store, ""); err == nil || !strings.Contains(err.Error(), "no Jepsen run") {
		t.Errorf("reading a directory with no run: %v", err)
	}
	for _, p := range []string{newer, test} {
		if _, err := ReadFile(p, ""); err != nil {
			t.Errorf("reading %s: %v", p, err)
		}
	}
}
