package report

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// timelineWidth is the number of columns the time axis is scaled to.
const timelineWidth = 60

// Timeline renders operations of h as a small text timeline: one lane per
// client, each operation a bar over its interval scaled to about
// 60 columns, with its times at the end of the line. An operation that never
// returned runs open-ended to the right edge ("...>"). When bars of one
// client do not fit side by side, the lane continues on the next line.
//
//	A |==== w(1) ====================|        [0, 10]
//	B |   |= r(1) =|                           [2, 4]
func Timeline(h *history.History, ops []int) string {
	var ps []int
	seen := make(map[int]bool)
	for _, p := range ops {
		if p >= 0 && p < len(h.Ops) && !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return ""
	}
	sort.SliceStable(ps, func(a, b int) bool { return h.Ops[ps[a]].Call < h.Ops[ps[b]].Call })

	lo, hi := h.Ops[ps[0]].Call, h.Ops[ps[0]].Call
	for _, p := range ps {
		o := &h.Ops[p]
		lo, hi = min(lo, o.Call), max(hi, o.Call)
		if o.Return != history.Infinity {
			hi = max(hi, o.Return)
		}
	}
	col := func(t int64) int {
		if hi == lo {
			return 0
		}
		// Scale in floating point: recorded times may be nanoseconds.
		return int(float64(t-lo)*float64(timelineWidth-1)/float64(hi-lo) + 0.5)
	}

	type lane struct {
		name string
		ops  []int
	}
	// Lanes in order of each client's first operation, named as the input
	// names the client. A client that continued after an operation of
	// unknown outcome overlaps it; the lane then continues on a second row.
	var lanes []*lane
	byClient := make(map[string]*lane)
	for _, p := range ps {
		o := &h.Ops[p]
		l := byClient[o.Client]
		if l == nil {
			l = &lane{name: history.Quote(o.Client)}
			byClient[o.Client] = l
			lanes = append(lanes, l)
		}
		l.ops = append(l.ops, p)
	}
	nameW := 0
	for _, l := range lanes {
		nameW = max(nameW, utf8.RuneCountInString(l.name)) // columns, not bytes: élan
	}

	type row struct {
		name  string
		cells []byte
		times []string
	}
	var rows []*row
	for _, l := range lanes {
		var mine []*row
		for _, p := range l.ops {
			o := &h.Ops[p]
			bar := drawBar(o, col)
			start := col(o.Call)
			var r *row
			for _, c := range mine {
				if fits(c.cells, start, len(bar)) {
					r = c
					break
				}
			}
			if r == nil {
				name := ""
				if len(mine) == 0 {
					name = l.name
				}
				r = &row{name: name}
				mine = append(mine, r)
			}
			for len(r.cells) < start+len(bar) {
				r.cells = append(r.cells, ' ')
			}
			copy(r.cells[start:], bar)
			r.times = append(r.times, span(o))
		}
		rows = append(rows, mine...)
	}
	cellW := 0
	for _, r := range rows {
		cellW = max(cellW, len(r.cells))
	}
	var sb strings.Builder
	for _, r := range rows {
		sb.WriteString(r.name)
		sb.WriteString(strings.Repeat(" ", nameW-utf8.RuneCountInString(r.name)+1))
		sb.Write(r.cells)
		sb.WriteString(strings.Repeat(" ", cellW-len(r.cells)+2))
		sb.WriteString(strings.Join(r.times, " "))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// fits reports whether a bar of n columns at start leaves a blank column
// on each side of what the row already holds.
func fits(cells []byte, start, n int) bool {
	for i := start - 1; i <= start+n; i++ {
		if i >= 0 && i < len(cells) && cells[i] != ' ' {
			return false
		}
	}
	return true
}

// drawBar draws an operation's bar: "|= r(1) =|" stretched over its
// interval (at least wide enough for its label), or "|= w(1) ====...>"
// to the right edge when it never returned.
func drawBar(o *history.Op, col func(int64) int) []byte {
	label := o.Label()
	if rest, ok := strings.CutPrefix(label, history.Quote(o.Client)+":"); ok {
		label = rest
	}
	start := col(o.Call)
	open := o.Return == history.Infinity
	end := timelineWidth - 1
	if !open {
		end = col(o.Return)
	}
	tail := "|"
	if open {
		tail = "...>"
	}
	minW := 1 + len(label) + 2 + len(tail) + 1 // "|=" + " label " + "=" + tail
	w := max(end-start+1, minW)
	fill := w - 1 - len(tail) - len(label) - 2 // '=' around " label "
	left := min(max(fill/2, 1), 4)
	if fill-left < 1 {
		left = max(fill-1, 1)
	}
	right := fill - left
	var b strings.Builder
	b.WriteByte('|')
	b.WriteString(strings.Repeat("=", left))
	b.WriteByte(' ')
	b.WriteString(label)
	b.WriteByte(' ')
	b.WriteString(strings.Repeat("=", right))
	b.WriteString(tail)
	return []byte(b.String())
}
