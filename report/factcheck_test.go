package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// The fact checker reads a report back (its JSON form, decoded) and checks
// each fact an explanation states against the history it was found in:
// who wrote which value, which operation ended before which began, which
// process order, what a count counts. It knows the explanations' sentence
// shapes, not how they were written: a fact it finds false is a false
// sentence in a report.

// explained is one violation as a reader gets it: its operations, the
// core's when it has one, and every sentence said about them.
type explained struct {
	h *history.History
	// ops are the positions in h of the operations the violation names.
	ops  []int
	text string // story, facts and checker's words
	init string
	core bool // the explanation is a core's
	// all are the labels of h's operations, by position, shared by the
	// violations of one history.
	all []string
}

// violationsOf decodes hr's JSON form and returns each violation's
// explanation with the operations it names, as positions in h (matched by
// their index and label).
func violationsOf(h *history.History, hr report.History) ([]explained, error) {
	var buf bytes.Buffer
	if err := report.JSON(&buf, &report.Report{Histories: []report.History{hr}}); err != nil {
		return nil, err
	}
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		return nil, err
	}
	init := "" // the initial value as the JSON form gives it; "" when not known
	if raw := back.Histories[0].Init; raw != nil {
		init = string(raw)
		if init == "null" {
			init = "nil" // as a label shows it
		}
	}
	at := make(map[string]int) // "index label" -> position
	all := make([]string, len(h.Ops))
	for i := range h.Ops {
		all[i] = h.Ops[i].Label()
		at[strconv.FormatInt(h.Ops[i].Index, 10)+" "+all[i]] = i
	}
	var out []explained
	for _, r := range back.Histories[0].Results {
		for _, v := range r.Violations {
			e := explained{h: h, text: v.Explanation, init: init, all: all}
			named := v.Ops
			if v.Core != nil {
				named = append(append([]report.Op(nil), v.Core.Ops...), v.Core.Weakened...)
				e.text, e.core = v.Core.Explanation, true
			}
			for _, o := range named {
				p, ok := at[strconv.FormatInt(o.Index, 10)+" "+o.Label]
				if !ok {
					return nil, fmt.Errorf("operation %d %s is not in the history", o.Index, o.Label)
				}
				e.ops = append(e.ops, p)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// marked is an explanation with each operation's label replaced by ⟨p⟩,
// p its position, and the labels that stood for more than one operation.
func (e *explained) marked() (string, []string) {
	type cand struct {
		text string
		pos  int
	}
	byLabel := make(map[string][]int)
	for _, p := range e.ops {
		byLabel[e.h.Ops[p].Label()] = append(byLabel[e.h.Ops[p].Label()], p)
	}
	var cands []cand
	var repeated []string
	for l, ps := range byLabel {
		ps = uniq(ps)
		if len(ps) == 1 {
			cands = append(cands, cand{l, ps[0]})
			continue
		}
		for _, p := range ps {
			cands = append(cands, cand{l + "#" + strconv.FormatInt(e.h.Ops[p].Index, 10), p},
				cand{l + "#" + strconv.Itoa(p), p})
		}
		repeated = append(repeated, l)
	}
	// Longest first, so that a label inside another is not taken for it.
	sort.Slice(cands, func(a, b int) bool { return len(cands[a].text) > len(cands[b].text) })
	text := e.text
	for _, c := range cands {
		text = strings.ReplaceAll(text, c.text, "⟨"+strconv.Itoa(c.pos)+"⟩")
	}
	// A label of several operations left bare names none of them.
	var bare []string
	for _, l := range repeated {
		if strings.Contains(text, l) {
			bare = append(bare, l)
		}
	}
	return text, bare
}

func uniq(ps []int) []int {
	sort.Ints(ps)
	out := ps[:0]
	for i, p := range ps {
		if i == 0 || p != ps[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// A fact is one sentence shape and how to check it against the history.
type fact struct {
	name  string
	re    *regexp.Regexp
	check func(e *explained, m []string) error
}

const op = `⟨(\d+)⟩`

var facts = []fact{
	{"ran from", regexp.MustCompile(op + ` ran from (-?\d+) to (-?\d+)\.`), func(e *explained, m []string) error {
		o := e.op(m[1])
		return want(o.Call == num(m[2]) && o.Return == num(m[3]), "%s ran [%d, %d]", o.Label(), o.Call, o.Return)
	}},
	{"finished before began", regexp.MustCompile(op + ` finished at (-?\d+),? before ` + op + ` began at (-?\d+)`), func(e *explained, m []string) error {
		a, b := e.op(m[1]), e.op(m[3])
		return want(a.Return == num(m[2]) && b.Call == num(m[4]) && a.Return < b.Call, "%s returned at %d, %s was called at %d", a.Label(), a.Return, b.Label(), b.Call)
	}},
	{"same process", regexp.MustCompile(op + ` finished at -?\d+ before ` + op + ` began at -?\d+ \(same process\)`), func(e *explained, m []string) error {
		a, b := e.op(m[1]), e.op(m[2])
		return want(a.Process == b.Process, "%s and %s are of processes %d and %d", a.Label(), b.Label(), a.Process, b.Process)
	}},
	{"process order", regexp.MustCompile(op + ` (?:comes before|precedes) ` + op + ` in (?:process )?(.+?)'s (?:own )?order`), func(e *explained, m []string) error {
		a, b := e.op(m[1]), e.op(m[2])
		before := a.Call < b.Call || a.Call == b.Call && num(m[1]) < num(m[2])
		return want(a.Process == b.Process && history.Quote(a.Client) == m[3] && before,
			"%s and %s: clients %s and %s, calls %d and %d", a.Label(), b.Label(), a.Client, b.Client, a.Call, b.Call)
	}},
	{"read the new value", regexp.MustCompile(op + ` read the new value (.+?) and `), func(e *explained, m []string) error {
		a := e.op(m[1])
		return want(a.Value.String() == m[2], "%s read %s", a.Label(), a.Value)
	}},
	{"read, which only", regexp.MustCompile(op + ` (?:read|needs the value) (.+?), which only ` + op + ` wrote( here)?\.`), func(e *explained, m []string) error {
		// Besides the reader: a cas that needs what it stores.
		w := e.op(m[3])
		ws := slices.DeleteFunc(e.writers(e.op(m[1]).Key, m[2]), func(l string) bool { return l == e.op(m[1]).Label() })
		if err := want(stored(w) == m[2] && len(ws) == 1 && ws[0] == w.Label(), "%s stores %s; the others here storing it: %v", w.Label(), stored(w), ws); err != nil {
			return err
		}
		return e.alone(m[3], m[2], m[4] != "", int(num(m[1])))
	}},
	{"only wrote", regexp.MustCompile(`Only ` + op + ` wrote (.+?)( here)?, so`), func(e *explained, m []string) error {
		w := e.op(m[1])
		if err := want(stored(w) == m[2] && e.only(m[1], m[2]), "%s stores %s; the others here storing it: %v", w.Label(), stored(w), e.writers(w.Key, m[2])); err != nil {
			return err
		}
		return e.alone(m[1], m[2], m[3] != "", -1)
	}},
	{"the initial value", regexp.MustCompile(op + ` (?:read|needs the value) (.+?), which no operation here wrote: the initial value\.`), func(e *explained, m []string) error {
		ws := slices.DeleteFunc(e.writers(e.op(m[1]).Key, m[2]), func(l string) bool { return l == e.op(m[1]).Label() })
		return want(e.init != "" && e.init == m[2] && len(ws) == 0,
			"the initial value is %s; writers of %s here: %v", e.init, m[2], ws)
	}},
	{"no operation here wrote", regexp.MustCompile(op + ` (?:read|needs the value) (.+?), which no operation here wrote`), func(e *explained, m []string) error {
		// A cas that needs the value it stores does not give it itself.
		ws := slices.DeleteFunc(e.writers(e.op(m[1]).Key, m[2]), func(l string) bool { return l == e.op(m[1]).Label() })
		return want(len(ws) == 0, "writers of %s here: %v", m[2], ws)
	}},
	{"weakened, recorded", regexp.MustCompile(op + ` \(recorded \[(-?\d+), (-?\d+|\.\.\.)[\])]\) is weakened`), func(e *explained, m []string) error {
		o := e.op(m[1])
		ret := strconv.FormatInt(o.Return, 10)
		if o.Return == history.Infinity {
			ret = "..."
		}
		return want(o.Call == num(m[2]) && ret == m[3], "%s ran [%d, %s]", o.Label(), o.Call, ret)
	}},
	{"had finished", regexp.MustCompile(op + ` had finished at (-?\d+)`), func(e *explained, m []string) error {
		o := e.op(m[1])
		return want(o.Return == num(m[2]), "%s returned at %d", o.Label(), o.Return)
	}},
	{"written only by", regexp.MustCompile(`(\S+), written only by ` + op), func(e *explained, m []string) error {
		// Of the operations of the violation (a core's are all that
		// is left of the history), or of the whole history.
		w := e.op(m[2])
		n := len(e.writers(w.Key, m[1]))
		if !e.core {
			n = 0
			for i := range e.h.Ops {
				if e.h.Ops[i].Status != history.Fail && isWrite(&e.h.Ops[i]) && stored(&e.h.Ops[i]) == m[1] {
					n++
				}
			}
		}
		return want(stored(w) == m[1] && n == 1, "%s stores %s; %d writes of %s", w.Label(), stored(w), n, m[1])
	}},
	{"returned until called", regexp.MustCompile(`from when ` + op + ` returned \(at (-?\d+)\) until ` + op + ` was called \(at (-?\d+)\)`), func(e *explained, m []string) error {
		a, b := e.op(m[1]), e.op(m[3])
		return want(a.Return == num(m[2]) && b.Call == num(m[4]), "%s returned at %d, %s was called at %d", a.Label(), a.Return, b.Label(), b.Call)
	}},
	{"called, returned", regexp.MustCompile(`from (-?\d+) to (-?\d+) \(after ` + op + ` was called, before ` + op + ` returned\)`), func(e *explained, m []string) error {
		a, b := e.op(m[3]), e.op(m[4])
		return want(a.Call == num(m[1]) && b.Return == num(m[2]), "%s was called at %d, %s returned at %d", a.Label(), a.Call, b.Label(), b.Return)
	}},
	{"returned before the only write", regexp.MustCompile(op + ` read (\S+) but returned before ` + op + `, the only write of`), func(e *explained, m []string) error {
		r, w := e.op(m[1]), e.op(m[3])
		return want(r.Return < w.Call && r.Value.String() == m[2] && stored(w) == m[2], "%s [%d, %d], %s [%d, %d]", r.Label(), r.Call, r.Return, w.Label(), w.Call, w.Return)
	}},
	{"read what wrote", regexp.MustCompile(op + ` read the value ` + op + ` wrote`), func(e *explained, m []string) error {
		r, w := e.op(m[1]), e.op(m[2])
		return want(readOf(r) == stored(w), "%s read %s, %s stores %s", r.Label(), readOf(r), w.Label(), stored(w))
	}},
	{"lock count", regexp.MustCompile(`(?:the operations of (.+?) alone .*)?(\d+) operations took the lock and (\d+) released it`), func(e *explained, m []string) error {
		up, down := 0, 0
		for i := range e.h.Ops {
			o := &e.h.Ops[i]
			if o.Status != history.OK || m[1] != "" && history.Quote(o.Client) != m[1] {
				continue
			}
			switch o.F {
			case "acquire", "lock":
				up++
			case "release", "unlock":
				down++
			}
		}
		return want(strconv.Itoa(up) == m[2] && strconv.Itoa(down) == m[3], "%d acquires and %d releases completed", up, down)
	}},
}

// checkFacts checks every fact e states, and that it names each operation
// by a label of its own; it returns what it found false. seen counts the
// facts checked by name.
func (e *explained) checkFacts(seen map[string]int) []string {
	text, bare := e.marked()
	var bad []string
	for _, l := range bare {
		bad = append(bad, fmt.Sprintf("the label %s stands for more than one operation", l))
	}
	for _, f := range facts {
		for _, m := range f.re.FindAllStringSubmatch(text, -1) {
			seen[f.name]++
			if err := f.check(e, m); err != nil {
				bad = append(bad, fmt.Sprintf("%s: %q: %v", f.name, m[0], err))
			}
		}
	}
	return bad
}

func (e *explained) op(p string) *history.Op { return &e.h.Ops[int(num(p))] }

// writers lists the operations of the explanation that store v on key.
func (e *explained) writers(key history.Value, v string) []string {
	var out []string
	for _, p := range e.ops {
		if o := &e.h.Ops[p]; o.Key == key && isWrite(o) && stored(o) == v {
			out = append(out, o.Label())
		}
	}
	return out
}

// alone checks "only W wrote v" against the whole history: said without
// "here", no other operation of it (but the reader, a cas that stores
// what it needs) stores v on W's key; said with it, some other one does.
func (e *explained) alone(p, v string, here bool, reader int) error {
	w := e.op(p)
	var others []string
	for i := range e.h.Ops {
		o := &e.h.Ops[i]
		if i != int(num(p)) && i != reader && o.Status != history.Fail && o.Key == w.Key && isWrite(o) && stored(o) == v {
			others = append(others, o.Label())
		}
	}
	return want(here == (len(others) > 0), "said of the history (here: %v), other writes of %s in it: %v", here, v, others)
}

// only reports whether the operation at p is the one operation of the
// explanation that stores v.
func (e *explained) only(p, v string) bool {
	ws := e.writers(e.op(p).Key, v)
	return len(ws) == 1 && ws[0] == e.op(p).Label()
}

func isWrite(o *history.Op) bool {
	switch o.F {
	case "w", "write", "put", "cas", "compare-and-set":
		return true
	}
	return false
}

// stored is the value a write or cas stores, as text.
func stored(o *history.Op) string {
	if _, to, ok := o.Value.Pair(); ok && (o.F == "cas" || o.F == "compare-and-set") {
		return to.String()
	}
	return o.Value.String()
}

// readOf is the value a read returned or a cas compared with, as text.
func readOf(o *history.Op) string {
	if from, _, ok := o.Value.Pair(); ok && (o.F == "cas" || o.F == "compare-and-set") {
		return from.String()
	}
	return o.Value.String()
}

func num(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1 << 62
	}
	return n
}

func want(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, args...)
}
