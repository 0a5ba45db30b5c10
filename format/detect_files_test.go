package format

import (
	"bufio"
	"flag"
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
// was made cheaper, and for every file (those added since too) the format
// of the reference decision. Run with -update-detected to rewrite the
// table.
func TestDetectFiles(t *testing.T) {
	table := filepath.Join("testdata", "detected.txt")
	b, err := os.ReadFile(table)
	if err != nil && !*updateDetected {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		path, name, _ := strings.Cut(l, "\t")
		want[path] = name
	}
	var all []string
	for _, dir := range []string{"testdata", "corpus"} {
		t.Run(dir, func(t *testing.T) {
			root := filepath.Join("..", "testdata")
			if dir == "corpus" {
				root = corpus.Dir(t)
			}
			recorded := 0
			for _, rel := range detectFiles(t, root) {
				path := dir + "/" + rel
				got := detectFile(t, filepath.Join(root, rel))
				all = append(all, path+"\t"+got)
				if w, ok := want[path]; ok {
					recorded++
					if got != w {
						t.Errorf("%s: detected %q, %s says %q", path, got, table, w)
					}
				}
			}
			// The table must still describe most files, or the test checks
			// nothing but the reference.
			if recorded < 150 && !*updateDetected {
				t.Errorf("only %d files of %s are in %s", recorded, dir, table)
			}
		})
	}
	if *updateDetected {
		if err := os.WriteFile(table, []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
