package isolation_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/format"
)

// TestPublished judges the research tools' own labelled histories, as
// transcribed into testdata/isolation (Jepsen rw-register EDN), as their
// tools do: each folder's expect.json gives, per file, the verdict the
// tool's tests assert at each level they assert.
func TestPublished(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/isolation/*/expect.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no expectations: %v", err)
	}
	for _, exp := range dirs {
		raw, err := os.ReadFile(exp)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]map[string]bool
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		files := make([]string, 0, len(want))
		for f := range want {
			files = append(files, f)
		}
		sort.Strings(files)
		for _, f := range files {
			path := filepath.Join(filepath.Dir(exp), f)
			h, err := format.ReadFile(path, "")
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for level, holds := range want[f] {
				res, err := isolation.Check(context.Background(), h, level, isolation.Options{Verify: true})
				if err != nil {
					t.Errorf("%s, %s: %v", path, level, err)
					continue
				}
				if got := res.Valid == checker.True; res.Valid == checker.Unknown || got != holds {
					t.Errorf("%s, %s: %s (%s), the tool's tests say %v", path, level, res.Valid, res.Reason, holds)
				}
				if res.Valid == checker.False {
					if err := violatesAlone(h, level, res); err != nil {
						t.Errorf("%s, %s: %v", path, level, err)
					}
				}
			}
		}
	}
}
