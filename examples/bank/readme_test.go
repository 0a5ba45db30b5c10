package bank_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Regions of the example's sources that the documents show, between
// "// readme:begin NAME" and "// readme:end NAME" lines.
var regionFiles = map[string]string{
	"state":   "bank.go",
	"step":    "bank.go",
	"library": "example_test.go",
	"cli":     filepath.Join("cmd", "bankcheck", "main.go"),
}

// region returns the text between a region's marker lines, without the
// blank lines that set the markers apart.
func region(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(regionFiles[name])
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	begin, end := "// readme:begin "+name+"\n", "// readme:end "+name+"\n"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no region %s", regionFiles[name], name)
	}
	return strings.Trim(s[i+len(begin):j], "\n") + "\n"
}

// A document names the region a code block shows in a comment just before
// it: <!-- examples/bank region NAME -->.
var blockRe = regexp.MustCompile("<!-- examples/bank region (\\w+) -->\n```go\n((?s:.*?))```\n")

// TestDocsShowTheExample checks that the code blocks of the documents that
// show the example are the example's source, byte for byte, so that what
// the documents show is what the tests compile and run.
func TestDocsShowTheExample(t *testing.T) {
	docs := map[string][]string{
		"README.md": {"library", "cli"},
		filepath.Join("..", "..", "docs", "models.md"): {"state", "step", "library", "cli"},
	}
	for doc, want := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		shown := map[string]bool{}
		for _, m := range blockRe.FindAllStringSubmatch(string(text), -1) {
			name, code := m[1], m[2]
			if _, ok := regionFiles[name]; !ok {
				t.Errorf("%s shows an unknown region %s", doc, name)
				continue
			}
			shown[name] = true
			if src := region(t, name); code != src {
				t.Errorf("%s: the block of region %s differs from %s; copy it again:\n%s", doc, name, regionFiles[name], src)
			}
		}
		for _, name := range want {
			if !shown[name] {
				t.Errorf("%s does not show region %s", doc, name)
			}
		}
	}
}
