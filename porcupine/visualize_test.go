package porcupine_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/porcupine"
)

// TestVisualize checks what the page shows: every operation by the
// model's description, the annotations, the state after each step of the
// longest partial linearization, the explanation of an illegal history,
// and everything from the history or model escaped.
func TestVisualize(t *testing.T) {
	m := register
	m.DescribeState = func(s interface{}) string { return fmt.Sprintf("<b>%v</b>", s) }
	ops := []porcupine.Operation{
		{ClientId: 0, Input: registerInput{true, 1}, Call: 0, Return: 10, Metadata: "<meta>"},
		{ClientId: 1, Input: registerInput{false, 0}, Call: 2, Output: 1, Return: 4},
		{ClientId: 2, Input: registerInput{false, 0}, Call: 5, Output: 0, Return: 7},
	}
	cases := []struct {
		name  string
		ops   []porcupine.Operation
		wants []string
	}{
		{"illegal", ops, []string{"write(1)", "read() -&gt; 1", "read() -&gt; 0", "&lt;meta&gt;", "&lt;b&gt;1&lt;/b&gt;",
			"Illegal: partition 0", "cannot take effect", "Core (minimal)", "leader &lt;changed&gt;", "#abcdef"}},
		{"ok", ops[:2], []string{"write(1)", "read() -&gt; 1", "&lt;b&gt;1&lt;/b&gt;", "leader &lt;changed&gt;"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, info := porcupine.CheckOperationsVerbose(m, c.ops, 0)
			info.AddAnnotations([]porcupine.Annotation{{Tag: "servers", Start: 3, End: 1, Description: "leader <changed>",
				BackgroundColor: "#abcdef"}})
			var page bytes.Buffer
			if err := porcupine.Visualize(m, info, &page); err != nil {
				t.Fatal(err)
			}
			s := page.String()
			for _, w := range c.wants {
				if !strings.Contains(s, w) {
					t.Errorf("the page does not show %q", w)
				}
			}
			for _, raw := range []string{"<meta>", "<b>", "<changed>"} {
				if strings.Contains(s, raw) {
					t.Errorf("the page shows %q unescaped", raw)
				}
			}
		})
	}
}
