package porcupine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/porcupine"
)

// TestVisualize checks what the page shows, from the data its script
// draws: every operation by the model's description, the annotations,
// the state after each step of the longest legal order, the explanation
// and core of an illegal history, the order of a linearizable one; and
// nothing from the history or model as markup.
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
		{"illegal", ops, []string{`"label":["0:write(1)()","1:read() -\u003e 1()","2:read() -\u003e 0()"]`,
			`"valid":"false"`, `"states":["\u003cb\u003e1\u003c/b\u003e"`, `"core":{"ops":[`, `"minimal":true`,
			`"label":"leader \u003cchanged\u003e"`, `"background":"#abcdef"`, `"lane":"servers"`}},
		{"ok", ops[:2], []string{`"label":["0:write(1)()","1:read() -\u003e 1()"]`, `"valid":"true"`, `"witness":[0,1]`,
			`"label":"leader \u003cchanged\u003e"`}},
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
			data := pageBlob(t, s)
			for _, w := range c.wants {
				if !strings.Contains(data, w) {
					t.Errorf("the page's data has no %s:\n%s", w, data)
				}
			}
			for _, raw := range []string{"<meta>", "<b>1", "<changed>"} {
				if strings.Contains(s, raw) {
					t.Errorf("the page shows %q unescaped", raw)
				}
			}
		})
	}
}

// pageBlob is the data the page's script reads, as compact JSON.
func pageBlob(t *testing.T, page string) string {
	t.Helper()
	const open = `<script id="histcheck-data" type="application/json">`
	_, rest, ok := strings.Cut(page, open)
	blob, _, closed := strings.Cut(rest, "</script>")
	if !ok || !closed {
		t.Fatal("the page has no data")
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(blob)); err != nil {
		t.Fatalf("the page's data: %v", err)
	}
	return buf.String()
}

// TestVisualizePartitions checks the page's histories: one per partition,
// each with its verdict and every annotation (a client's in a lane named
// after it); and a client that overlaps its own operations, which
// Porcupine allows, with each of those on a lane of its own.
func TestVisualizePartitions(t *testing.T) {
	w1, r := registerInput{true, 1}, registerInput{false, 0}
	halves := register
	halves.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		return [][]porcupine.Operation{ops[:2], ops[2:]}
	}
	cases := []struct {
		name  string
		m     porcupine.Model
		ops   []porcupine.Operation
		wants []string
	}{
		{"partitions", halves, []porcupine.Operation{
			{ClientId: 0, Input: w1, Call: 0, Return: 2}, {ClientId: 1, Input: r, Output: 1, Call: 3, Return: 4},
			{ClientId: 2, Input: r, Output: 5, Call: 0, Return: 1}},
			[]string{`"valid":"false","histories":[{"file":"partition 0"`, `"results":[{"consistency":"linearizable","valid":"true"`,
				`{"file":"partition 1"`, `"results":[{"consistency":"linearizable","valid":"false"`,
				`"notes":[{"lane":"client 1","start":1,"end":3,"label":"slow"`}},
		{"overlapping client", register, []porcupine.Operation{
			{ClientId: 0, Input: w1, Call: 0, Return: 5}, {ClientId: 0, Input: r, Output: 1, Call: 1, Return: 4}},
			[]string{`"valid":"true"`, `"lanes":[{"name":"0#0","client":"0#0"},{"name":"0#1","client":"0#1"}]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, info := porcupine.CheckOperationsVerbose(c.m, c.ops, 0)
			info.AddAnnotations([]porcupine.Annotation{{ClientId: 1, Start: 1, End: 3, Description: "slow"}})
			var page bytes.Buffer
			if err := porcupine.Visualize(c.m, info, &page); err != nil {
				t.Fatal(err)
			}
			data := pageBlob(t, page.String())
			for _, w := range c.wants {
				if !strings.Contains(data, w) {
					t.Errorf("the page's data has no %s:\n%s", w, data)
				}
			}
			if n := strings.Count(data, `"label":"slow"`); n != strings.Count(data, `"file":`) {
				t.Errorf("the annotation is in %d of the page's histories, want every one:\n%s", n, data)
			}
		})
	}
}
