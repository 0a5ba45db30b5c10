package format

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/internal/corpus"
)

var updateDetected = flag.Bool("update-detected", false, "rewrite testdata/detected.txt from the current detection")

// detectFiles lists the files under root, as paths relative to root.
func detectFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// detectFile is what detection by content names for the file at p, as Read
// sees its head: decompressed when it is gzip, cut at the size detection
// looks at. "-" is a file detection never sees (its head is not UTF-8).
func detectFile(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br, _, err := gunzip(p, bufio.NewReaderSize(f, sniffLimit))
	if err != nil {
		t.Fatal(err)
	}
	head, _ := br.Peek(min(sniffLimit, br.Size()))
	if checkUTF8(trimPartialRune(head)) != nil {
		return "-"
	}
	if got, ref := sniffName(head), sniffReference(head); got != ref {
		t.Errorf("%s: detected %q, the reference decision %q", p, got, ref)
	}
	return sniffName(head)
}

// TestDetectFiles checks that detection by content names, for every file
// of the repository's test data and of the shared corpus, the format
// recorded in testdata/detected.txt, which was written before detection
// was made cheaper. Run with -update-detected to rewrite the table.
func TestDetectFiles(t *testing.T) {
	table := filepath.Join("testdata", "detected.txt")
	b, err := os.ReadFile(table)
	if err != nil && !*updateDetected {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var all []string
	for _, name := range []string{"testdata", "corpus"} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("..", "testdata")
			if name == "corpus" {
				root = corpus.Dir(t)
			}
			var got []string
			for _, rel := range detectFiles(t, root) {
				got = append(got, fmt.Sprintf("%s/%s\t%s", name, rel, detectFile(t, filepath.Join(root, rel))))
			}
			all = append(all, got...)
			if !*updateDetected {
				compareLines(t, got, linesUnder(want, name+"/"), table)
			}
		})
	}
	if *updateDetected {
		if err := os.WriteFile(table, []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// linesUnder keeps the lines that start with prefix.
func linesUnder(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// compareLines reports where got and the table's lines want differ.
func compareLines(t *testing.T, got, want []string, table string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d files, %d in %s", len(got), len(want), table)
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("got %q, %s says %q", got[i], table, want[i])
		}
	}
}
