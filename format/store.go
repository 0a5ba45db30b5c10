package format

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// storeHistories are the files a Jepsen run directory keeps its history
// in, in the order they are looked for.
var storeHistories = []string{"history.edn", "history.edn.gz", "history.json", "history.jsonl", "history.txt"}

// Runs returns the history files a Jepsen store directory holds: the
// directory's own when it is a run (store/TEST/TIME/, holding
// history.edn), else those of the runs in it (store/TEST/), the newest
// only unless all is set. Jepsen names runs by their start time, so the
// newest sorts last; the "latest" and "current" links are left out, as
// they point at one of the runs.
func Runs(dir string, all bool) ([]string, error) {
	if f := runHistory(dir); f != "" {
		return []string{f}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &history.InputError{File: dir, Msg: fmt.Sprintf("cannot read the directory: %v", errors.Unwrap(err))}
	}
	var runs []string
	for _, e := range entries {
		if e.Name() == "latest" || e.Name() == "current" {
			continue
		}
		if f := runHistory(filepath.Join(dir, e.Name())); f != "" {
			runs = append(runs, f)
		}
	}
	if len(runs) == 0 {
		return nil, &history.InputError{File: dir, Msg: "a directory with no Jepsen run in it and no history file: expected history.edn in it or in its run directories, or files in a history format (check --recursive also looks in its subdirectories)"}
	}
	sort.Strings(runs)
	if !all {
		runs = runs[len(runs)-1:]
	}
	return runs, nil
}

// runHistory returns the history file of run directory dir, or "".
func runHistory(dir string) string {
	for _, name := range storeHistories {
		f := filepath.Join(dir, name)
		if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
			return f
		}
	}
	return ""
}

// Open opens a history file for reading. A Jepsen store directory opens
// the history of its newest run (Runs); a directory with no run is an
// input error that says what it should have held.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err == nil && st.IsDir() {
		runs, err := Runs(path, false)
		if err != nil {
			return nil, err
		}
		path = runs[0]
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &history.InputError{File: path, Msg: fmt.Sprintf("cannot open: %v", errors.Unwrap(err))}
	}
	return f, nil
}
