package format

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Skipped is a file of a directory of histories that is not checked, and
// why.
type Skipped struct {
	Path   string
	Reason string
}

// Expand replaces each directory among paths by the histories it holds:
// the history files of its Jepsen runs when it is a Jepsen store directory
// (Runs, the newest run only unless all is set), else the files in it
// whose format is detected (Detected), in sorted path order, descending
// into its subdirectories when recursive is set. A subdirectory that is a
// Jepsen run gives its history file only, as the run's other files
// (results, logs) are not histories. Files that are not histories are
// returned as skipped. Other paths, and directories that hold no history
// (Open says why), are kept as they are, so that every path named is
// checked or refused.
func Expand(paths []string, all, recursive bool) ([]string, []Skipped) {
	out := make([]string, 0, len(paths))
	var skipped []Skipped
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			out = append(out, p)
			continue
		}
		if LogFolder(p) { // Cobra's logs: one history
			out = append(out, p)
			continue
		}
		if runs, err := Runs(p, all); err == nil {
			out = append(out, runs...)
			continue
		}
		files, skip := histories(p, recursive)
		skipped = append(skipped, skip...)
		if len(files) == 0 {
			out = append(out, p)
			continue
		}
		out = append(out, files...)
	}
	return out, skipped
}

// histories lists the history files of a plain directory, sorted.
func histories(dir string, recursive bool) ([]string, []Skipped) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil // Open says why
	}
	var files []string
	var skipped []Skipped
	for _, e := range entries { // ReadDir sorts by name
		p := filepath.Join(dir, e.Name())
		st, err := os.Stat(p) // follows links to files
		switch {
		case err != nil:
			skipped = append(skipped, Skipped{p, fmt.Sprintf("cannot read it: %v", errors.Unwrap(err))})
		case st.IsDir() && e.Type()&os.ModeSymlink != 0:
			skipped = append(skipped, Skipped{p, "a link to a directory, not followed"})
		case st.IsDir() && !recursive:
			skipped = append(skipped, Skipped{p, "a directory; --recursive checks the files in it"})
		case st.IsDir():
			if f := runHistory(p); f != "" {
				files = append(files, f)
				continue
			}
			sub, skip := histories(p, true)
			files = append(files, sub...)
			skipped = append(skipped, skip...)
		case !st.Mode().IsRegular():
			skipped = append(skipped, Skipped{p, "not a regular file"})
		case !Detected(p):
			skipped = append(skipped, Skipped{p, "not a history: its format is not detected from its name or content"})
		default:
			files = append(files, p)
		}
	}
	sort.Strings(files)
	return files, skipped
}

// Detected reports whether the format of the file at path is detected, as
// Read detects it: from the extension (inside a .gz one), else from the
// first bytes of its content, decompressed when it is gzip.
func Detected(path string) bool {
	if byExtension(strings.TrimSuffix(path, ".gz")) != nil {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br, name, err := gunzip(path, bufio.NewReaderSize(f, sniffLimit))
	if err != nil {
		return false
	}
	if byExtension(name) != nil {
		return true
	}
	head, err := br.Peek(sniffLimit)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return false
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // a byte order mark, as Read skips it
	return byContent(trimPartialRune(head)) != nil
}
