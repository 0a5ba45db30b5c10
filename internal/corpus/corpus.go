// Package corpus locates the shared corpus of recorded histories for tests:
// the folder shared/corpus beside the project's root.
package corpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Dir returns the corpus folder, or skips the test with a message when it
// is absent (a fresh clone without it still passes).
func Dir(t testing.TB) string {
	t.Helper()
	d, err := find()
	if err != nil {
		t.Skipf("shared corpus not found (%v); these tests need ../shared/corpus beside the project", err)
	}
	return d
}

func find() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus")
			if _, err := os.Stat(c); err != nil {
				return "", err
			}
			return filepath.Clean(c), nil
		}
		if filepath.Dir(d) == d {
			return "", os.ErrNotExist
		}
	}
}

// Row is one line of a corpus folder's EXPECTED.tsv.
type Row struct {
	Dir      string // folder name under the corpus, e.g. "porcupine-etcd"
	File     string // path relative to Dir
	Model    string
	Init     string // as written: "0", "nil", `""`, "free"
	NilRead  string // "value", "any" or "-"
	Expected string // "valid" or "invalid"
}

// Path returns the row's file path under the corpus root c.
func (r Row) Path(c string) string { return filepath.Join(c, r.Dir, r.File) }

// Expected reads every EXPECTED.tsv under the corpus root c.
func Expected(t testing.TB, c string) []Row {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(c, "*", "EXPECTED.tsv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no EXPECTED.tsv under %s: %v", c, err)
	}
	var rows []Row
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		first := true
		for sc.Scan() {
			if first {
				first = false
				continue
			}
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) < 5 {
				continue
			}
			rows = append(rows, Row{Dir: filepath.Base(filepath.Dir(f)), File: cols[0], Model: cols[1],
				Init: cols[2], NilRead: cols[3], Expected: cols[4]})
		}
		fh.Close()
	}
	return rows
}

// Options turns the row's settings into model options: its initial value
// ("nil", "0", `""`; "free" and "-" leave the model's default) and its rule
// for reads of nil.
func (r Row) Options() (model.Options, error) {
	var o model.Options
	switch r.Init {
	case "nil":
		o.Init = history.NilValue
	case `""`:
		o.Init = history.StringValue("")
	case "free", "-", "":
	default:
		n, err := strconv.ParseInt(r.Init, 10, 64)
		if err != nil {
			return o, fmt.Errorf("%s: unknown initial value %q", r.File, r.Init)
		}
		o.Init = history.IntValue(n)
	}
	if r.NilRead == "any" {
		o.NilRead = model.NilIsAny
	}
	return o, nil
}
