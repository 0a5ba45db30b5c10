package causal

import (
	"errors"
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// ErrUnsupportedOp is wrapped by the error Prepare returns for an operation
// that is neither a read nor a write.
var ErrUnsupportedOp = errors.New("causal checks support read, write and cas operations only")

// Read-from markers for Op.RF.
const (
	RFInit    int32 = -1 // the read returned the initial value
	RFThinAir int32 = -2 // no write wrote the value read
)

// Op is one retained operation of a read/write history.
type Op struct {
	Pos   int   // position in history.History.Ops
	Proc  int32 // dense index of the operation's process among Prepared.Procs
	Idx   int32 // index of the operation within its process
	Key   int32 // dense key id
	Write bool
	// RF is, for a read, the index (in Prepared.Ops) of the write it read,
	// RFInit or RFThinAir. Writes have RF = RFInit.
	RF int32
	// Version is the operation's explicit version when Prepared.Versioned.
	Version int64
}

// Prepared is a read/write history reduced to what the causal and session
// checkers need: failed operations and unobserved operations of unknown
// outcome removed, reads mapped to the writes they read.
type Prepared struct {
	H     *history.History
	Ops   []Op
	Procs [][]int32 // per process, indices into Ops in process order
	// Keys names each key id (None for a single register).
	Keys []history.Value
	// Versioned reports that reads-from (and, for the session guarantees,
	// "older") comes from the operations' explicit versions.
	Versioned bool
	// Unknown, when not empty, says why the history cannot be checked
	// exactly. The fields above are then partial.
	Unknown string
	// Dropped lists positions of operations of unknown outcome left out.
	Dropped []int

	rdrs  [][]int32      // per write, the reads that read it
	byKey [][]ProcWrites // per key, each writing process's writes of it

	// amb, when reads-from is ambiguous (a value written twice to a key,
	// or the initial value written, and no versions), holds the choices
	// Search makes; the fields above are then those of the choice that
	// takes each read's only candidate and leaves the others out.
	amb *ambiguity
}

// Ambiguous reports that reads-from is not a function of the values: some
// read may have read one of several writes, and Search must choose.
func (p *Prepared) Ambiguous() bool { return p.amb != nil }

// ProcWrites lists one process's writes of one key in process order.
type ProcWrites struct {
	Proc int32
	Idx  []int32 // indices within the process
	Ops  []int32 // indices into Prepared.Ops
}

func (p *Prepared) readers(w int32) []int32 { return p.rdrs[w] }

// Readers returns the reads that read write w.
func (p *Prepared) Readers(w int32) []int32 { return p.rdrs[w] }

// Writers returns, for key k, each writing process's writes of k.
func (p *Prepared) Writers(k int32) []ProcWrites { return p.byKey[k] }

// lastBefore returns the last write in pw with index below n, or -1.
func (pw *ProcWrites) lastBefore(n int32) int32 {
	i := sort.Search(len(pw.Idx), func(i int) bool { return pw.Idx[i] >= n })
	if i == 0 {
		return -1
	}
	return pw.Ops[i-1]
}

// LastBefore returns the last of pw's writes whose index within its process
// is below n, or -1.
func (pw *ProcWrites) LastBefore(n int32) int32 { return pw.lastBefore(n) }

// FirstFrom returns the first of pw's writes whose index within its process
// is at least n, or -1.
func (pw *ProcWrites) FirstFrom(n int32) int32 {
	i := sort.Search(len(pw.Idx), func(i int) bool { return pw.Idx[i] >= n })
	if i == len(pw.Idx) {
		return -1
	}
	return pw.Ops[i]
}

// Identity says how Prepare maps reads to writes.
type Identity uint8

// Identities.
const (
	// PreferValues maps reads to writes by value when written values are
	// unique per key, else by version when every operation carries one.
	PreferValues Identity = iota
	// PreferVersions maps by version when every operation carries one,
	// else by value.
	PreferVersions
)

type rawOp struct {
	pos   int
	write bool
	key   history.Value
	val   history.Value
	ver   int64
	hasV  bool
	info  bool
	proc  int
	label string
	// casRead marks the read of a cas: the write of the same cas
	// follows it in the list, and the two stand or fall together.
	casRead bool
}

// IsRead reports whether the register model classes f as a read.
func IsRead(f string) bool { return registerInfo().ClassOf(f) == model.ReadOp }

// IsWrite reports whether the register model classes f as a write.
func IsWrite(f string) bool { return registerInfo().ClassOf(f) == model.WriteOp }

// registerInfo is the register model's Info, whose operation classes the
// checkers use when the caller names no model.
func registerInfo() model.Info { return model.NewRegister(model.Options{}).Info() }

// Prepare is PrepareFor with the register model's operations.
func Prepare(h *history.History, init history.Value, id Identity) (*Prepared, error) {
	return PrepareFor(h, model.Info{}, init, id)
}

// PrepareFor normalises h for the read/write checkers. The model m says
// which operations are reads, writes and cas (m.ClassOf); an Info that
// documents no operations, as the zero one, means the register's. A cas
// [from to] that took effect is a read of from and, right after it in its
// process, a write of to; a failed one did not happen, and one of unknown
// outcome may or may not have (a choice Search makes). init is the initial
// value of every key (None means nil). Any other operation is an error
// wrapping ErrUnsupportedOp.
func PrepareFor(h *history.History, m model.Info, init history.Value, id Identity) (*Prepared, error) {
	if len(m.Ops) == 0 {
		m = registerInfo()
	}
	if init.IsNone() {
		init = history.NilValue
	}
	raws, allVersions, err := retained(h, m)
	if err != nil {
		return nil, err
	}
	b := &preparer{p: &Prepared{H: h}, init: init, keyID: map[history.Value]int32{}, raws: raws}
	// Decide the identity of writes: values if unique, versions if given.
	valueProblem := b.valueProblem()
	versionProblem := b.versionProblem(allVersions)
	switch {
	case versionProblem == "" && (id == PreferVersions || valueProblem != ""):
		b.p.Versioned = true
	case valueProblem == "" && b.infoCAS() == "":
	case valueProblem == "":
		return b.ambiguous(b.infoCAS()), nil
	default:
		return b.ambiguous(valueProblem), nil
	}
	b.dropUnobserved()
	newIdx := b.groupByProcess()
	b.readsFrom(newIdx)
	b.p.index()
	return b.p, nil
}

// retained returns the operations of h the checkers keep: every read and
// write that did not fail, but reads of unknown outcome. It also reports
// whether every one of them carries a version.
func retained(h *history.History, m model.Info) (raws []rawOp, allVersions bool, err error) {
	allVersions = true
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		var w bool
		switch m.ClassOf(o.F) {
		case model.ReadOp:
		case model.WriteOp:
			w = true
		case model.CASOp:
			rd, wr, err := casHalves(m, o, i)
			if err != nil {
				return nil, false, err
			}
			raws = append(raws, rd, wr)
			allVersions = false // a cas reads one version and writes another
			continue
		default:
			return nil, false, fmt.Errorf("%w: %s is neither a read, a write nor a cas", ErrUnsupportedOp, o.Label())
		}
		if !w && o.Status == history.Info {
			continue // a read of unknown outcome constrains nothing
		}
		v := o.Value
		if v.IsNone() {
			v = history.NilValue
		}
		r := rawOp{pos: i, write: w, key: o.Key, val: v, info: o.Status == history.Info, proc: o.Process, label: o.Label()}
		if n, ok := o.Version.Int(); ok {
			r.ver, r.hasV = n, true
		} else {
			allVersions = false
		}
		raws = append(raws, r)
	}
	return raws, allVersions, nil
}

// casHalves returns the two operations a cas that took effect is: a read
// of the value it expected and, right after it in its process, a write of
// the value it stored. A cas of unknown outcome may not have happened: then
// neither did its read.
func casHalves(m model.Info, o *history.Op, pos int) (rd, wr rawOp, err error) {
	from, okF := m.Expected(o)
	to, okT := m.Stored(o)
	if !okF || !okT {
		return rd, wr, fmt.Errorf("%w: %s has no [from to] value", ErrUnsupportedOp, o.Label())
	}
	rd = rawOp{pos: pos, key: o.Key, val: orNil(from), proc: o.Process, label: o.Label(), casRead: true}
	wr = rawOp{pos: pos, write: true, key: o.Key, val: orNil(to), info: o.Status == history.Info, proc: o.Process, label: o.Label()}
	return rd, wr, nil
}

// preparer carries PrepareFor's work in progress.
type preparer struct {
	p     *Prepared
	init  history.Value
	keyID map[history.Value]int32
	raws  []rawOp
}

// ident is what names a write: its key and its value or its version.
type ident struct {
	key int32
	val history.Value
	ver int64
}

// kid returns key k's dense id, numbering keys in the order first asked.
func (b *preparer) kid(k history.Value) int32 {
	if id, ok := b.keyID[k]; ok {
		return id
	}
	id := int32(len(b.p.Keys))
	b.keyID[k] = id
	b.p.Keys = append(b.p.Keys, k)
	return id
}

// valueProblem says why values cannot name the writes ("" when they can):
// a write of the initial value, or a value written twice to a key.
func (b *preparer) valueProblem() string {
	seen := map[ident]int{}
	for i := range b.raws {
		r := &b.raws[i]
		if !r.write {
			continue
		}
		k := ident{key: b.kid(r.key), val: r.val}
		if r.val == b.init {
			return fmt.Sprintf("%s writes the initial value %s, so a read of it is ambiguous", r.label, b.init)
		}
		if j, dup := seen[k]; dup {
			return fmt.Sprintf("%s and %s write the same value", b.raws[j].label, r.label)
		}
		seen[k] = i
	}
	return ""
}

// infoCAS names a cas of unknown outcome, if any ("" if none): whether it
// took effect is a choice, since its own read may be all that says so.
func (b *preparer) infoCAS() string {
	for i := range b.raws {
		if b.raws[i].casRead && b.raws[i+1].info {
			return fmt.Sprintf("%s may or may not have taken effect", b.raws[i].label)
		}
	}
	return ""
}

// versionProblem says why versions cannot name the writes ("" when they
// can): an operation without one, or a version given twice to a key.
func (b *preparer) versionProblem(allVersions bool) string {
	if !allVersions {
		return "not every operation carries a version"
	}
	seen := map[ident]int{}
	for i := range b.raws {
		r := &b.raws[i]
		if !r.write {
			continue
		}
		k := ident{key: b.kid(r.key), ver: r.ver}
		if j, dup := seen[k]; dup {
			return fmt.Sprintf("%s and %s carry the same version %d", b.raws[j].label, r.label, r.ver)
		}
		seen[k] = i
	}
	return ""
}

// idOf names r's write (or, for a read, the write it names) by value or
// by version, as the Prepared decided.
func (b *preparer) idOf(r *rawOp) ident {
	if b.p.Versioned {
		return ident{key: b.kid(r.key), ver: r.ver}
	}
	return ident{key: b.kid(r.key), val: r.val}
}

// writers maps each write's identity to its index in b.raws.
func (b *preparer) writers() map[ident]int {
	writer := map[ident]int{}
	for i := range b.raws {
		if b.raws[i].write {
			writer[b.idOf(&b.raws[i])] = i
		}
	}
	return writer
}

// dropUnobserved leaves out the writes of unknown outcome that no read
// read: such a write may not have happened, and dropping it is exact.
func (b *preparer) dropUnobserved() {
	writer := b.writers()
	observed := make([]bool, len(b.raws))
	for i := range b.raws {
		if !b.raws[i].write {
			if j, ok := writer[b.idOf(&b.raws[i])]; ok && !b.ownWrite(i, j) {
				observed[j] = true
			}
		}
	}
	b.raws, _ = b.keepTaken(observed, nil, &b.p.Dropped)
}

// keepTaken returns the operations of b.raws that took effect, given
// which writes some read read (taken), and their indices in b.raws: a
// write of unknown outcome nobody read is dropped (its position goes to
// dropped), with the read of its cas; so are the reads for which left
// says so (nil: none).
func (b *preparer) keepTaken(taken []bool, left func(i int) bool, dropped *[]int) (keep []rawOp, from []int) {
	for i := range b.raws {
		r := &b.raws[i]
		if r.write && r.info && !taken[i] {
			*dropped = append(*dropped, r.pos)
			continue
		}
		if r.casRead && b.raws[i+1].info && !taken[i+1] {
			continue
		}
		if !r.write && left != nil && left(i) {
			continue
		}
		keep = append(keep, *r)
		from = append(from, i)
	}
	return keep, from
}

// ownWrite reports whether raws[j] is the write of the cas whose read is
// raws[i]: a cas does not read what it writes.
func (b *preparer) ownWrite(i, j int) bool { return b.raws[i].casRead && j == i+1 }

// groupByProcess fills p.Ops and p.Procs, process by process in order of
// first appearance, each in call order (h.Ops is sorted by Call already),
// and returns each kept operation's index in p.Ops.
func (b *preparer) groupByProcess() []int32 {
	raws, p := b.raws, b.p
	procIdx := map[int]int32{}
	for i := range raws {
		if _, ok := procIdx[raws[i].proc]; !ok {
			procIdx[raws[i].proc] = int32(len(procIdx))
		}
	}
	order := make([]int, len(raws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return procIdx[raws[order[a]].proc] < procIdx[raws[order[b]].proc]
	})
	p.Ops = make([]Op, len(raws))
	p.Procs = make([][]int32, len(procIdx))
	newIdx := make([]int32, len(raws))
	for n, i := range order {
		r := &raws[i]
		pr := procIdx[r.proc]
		newIdx[i] = int32(n)
		p.Ops[n] = Op{Pos: r.pos, Proc: pr, Idx: int32(len(p.Procs[pr])), Key: b.kid(r.key), Write: r.write, RF: RFInit, Version: r.ver}
		p.Procs[pr] = append(p.Procs[pr], int32(n))
	}
	return newIdx
}

// readsFrom sets each read's RF, newIdx mapping b.raws to p.Ops.
func (b *preparer) readsFrom(newIdx []int32) {
	// Map identities to positions in the kept operations only: indices
	// taken before the drop would point at other operations.
	writer := b.writers()
	for i := range b.raws {
		r := &b.raws[i]
		if r.write {
			continue
		}
		o := &b.p.Ops[newIdx[i]]
		if j, ok := writer[b.idOf(r)]; ok && !b.ownWrite(i, j) {
			o.RF = newIdx[j]
		} else if ok {
			o.RF = RFThinAir
		} else if r.val == b.init {
			o.RF = RFInit
		} else {
			o.RF = RFThinAir
		}
	}
}

func (p *Prepared) index() {
	p.rdrs = make([][]int32, len(p.Ops))
	p.byKey = make([][]ProcWrites, len(p.Keys))
	for q, ops := range p.Procs {
		for _, o := range ops {
			op := &p.Ops[o]
			if !op.Write {
				if op.RF >= 0 {
					p.rdrs[op.RF] = append(p.rdrs[op.RF], o)
				}
				continue
			}
			ws := p.byKey[op.Key]
			if len(ws) == 0 || ws[len(ws)-1].Proc != int32(q) {
				ws = append(ws, ProcWrites{Proc: int32(q)})
			}
			last := &ws[len(ws)-1]
			last.Idx = append(last.Idx, op.Idx)
			last.Ops = append(last.Ops, o)
			p.byKey[op.Key] = ws
		}
	}
}

// Method describes how reads were matched to writes.
func (p *Prepared) Method() string {
	if p.Versioned {
		return "reads-from by explicit versions"
	}
	if p.amb != nil {
		return "reads-from chosen among the writes of each value read"
	}
	return "reads-from by unique written values"
}

// positions maps op indices to history positions, sorted and deduplicated.
func (p *Prepared) positions(ops ...int32) []int {
	out := make([]int, 0, len(ops))
	for _, o := range ops {
		out = append(out, p.Ops[o].Pos)
	}
	sort.Ints(out)
	n := 0
	for i, v := range out {
		if i == 0 || v != out[n-1] {
			out[n] = v
			n++
		}
	}
	return out[:n]
}

// Positions is positions for other checker packages.
func (p *Prepared) Positions(ops ...int32) []int { return p.positions(ops...) }
