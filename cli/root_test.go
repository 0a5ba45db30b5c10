package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestRootBuildsCommandAsked checks that each command's entry in commands
// carries the name cobra calls it by (else asking for it by name would
// build the wrong tree), that naming a command first builds it alone, and
// that anything else builds every command, so that help lists them all.
func TestRootBuildsCommandAsked(t *testing.T) {
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, models: models(nil)}
	var all []string
	for _, c := range commands {
		if got := c.build(e).Name(); got != c.name {
			t.Errorf("commands entry %q builds command %q", c.name, got)
		}
		all = append(all, c.name)
	}
	slices.Sort(all) // cobra lists commands sorted
	names := func(args []string) string {
		var out []string
		for _, c := range newRoot(e, args).Commands() {
			out = append(out, c.Name())
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "x.edn"}, "check"},
		{[]string{"sim", "--help"}, "sim"},
		{[]string{"elle-cli", "--model", "list-append"}, "elle-cli"},
		{nil, strings.Join(all, " ")},
		{[]string{"--help"}, strings.Join(all, " ")},
		{[]string{"help", "check"}, strings.Join(all, " ")},
		{[]string{"chek"}, strings.Join(all, " ")},
	} {
		if got := names(tc.args); got != tc.want {
			t.Errorf("newRoot(%q) builds %q, want %q", tc.args, got, tc.want)
		}
	}

	var out bytes.Buffer
	if code := Main([]string{"--help"}, nil, &out, &out); code != 0 {
		t.Fatalf("histcheck --help exits %d", code)
	}
	for _, name := range all {
		if !strings.Contains(out.String(), "\n  "+name+" ") {
			t.Errorf("histcheck --help does not list %q:\n%s", name, out.String())
		}
	}
}
