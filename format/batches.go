package format

import (
	"io"
	"runtime"
	"slices"

	"github.com/histcheck/histcheck/history"
)

// Line-oriented inputs are read in batches of lines: one goroutine reads
// the lines, one per core parses batches into events, and the caller
// pairs the events batch by batch in the input's order, so that the
// history, and the first error, are those of a reading line by line. The
// parsing, most of a read's work, is shared between the cores.

// Batches hold about batchBytes of text, or batchLines lines: small
// enough that the batches in flight, and their events, take little
// memory beside the history, large enough that handing them over costs
// little beside parsing them.
const (
	batchBytes = 128 << 10
	batchLines = 1024
	// batchesAhead bounds the batches read but not yet paired: enough
	// for every worker to have one while the last is paired.
	batchesAhead = 3
)

// lineBatch is a run of consecutive lines and, once parsed, their events.
type lineBatch struct {
	data []byte
	// ends are where each record ends in data; first is the first
	// line's number. An EDN batch's records are forms, each at lines[i],
	// read at depth.
	ends  []int
	first int
	lines []int
	depth int
	// upTo is how much of the input was read up to the batch's end.
	upTo int64
	// readErr is the error reading the line after the batch's last.
	readErr error
	events  []history.Event
	// err is the error of the line after the events', if one had one.
	err  error
	done chan struct{}
	// scratch holds the lists the batch's parser built (see keep);
	// ahead lists the invocations given their completion's value in
	// advance, in order, each with its own value.
	scratch history.Scratch
	ahead   []aheadValue
}

// aheadValue is the value of the invocation at events[at], given its
// completion's in advance.
type aheadValue struct {
	at  int
	own history.Value
}

// fill reads lines into the batch until it is full, before bytes of the
// input having been read; eof reports that the input ended, or could not
// be read further (readErr).
func (b *lineBatch) fill(lr *lineReader, before int64) (eof bool) {
	b.first, b.upTo = lr.line+1, before
	for len(b.data) < batchBytes && len(b.ends) < batchLines {
		line, err := lr.next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			b.readErr = err
			return true
		}
		b.data = append(b.data, line...)
		b.ends = append(b.ends, len(b.data))
		b.upTo += int64(len(line)) + 1 // and its newline
	}
	return false
}

// pair adds the batch's events to pr, then returns the error that
// stopped it, if any. An invocation given its completion's value in
// advance (keep) gets its own back, out of the scratch memory, when its
// process has another operation open: the Pairer may then pair the
// completion with that one.
func (b *lineBatch) pair(pr *history.Pairer) error {
	next := 0
	for i := range b.events {
		if next < len(b.ahead) && b.ahead[next].at == i {
			if pr.Open(b.events[i].Process) {
				var lb history.ListBuilder
				lb.SetScratch(&b.scratch)
				b.events[i].Value = lb.Keep(b.ahead[next].own)
			}
			next++
		}
		if err := pr.Add(&b.events[i]); err != nil {
			return err
		}
	}
	if b.err != nil {
		return b.err
	}
	return b.readErr
}

// keep makes the batch's events, parsed with lb into the batch's scratch
// memory, hold no list in it, so that they outlive it: each list is
// copied out (history.ListBuilder.Keep), except the value of an
// invocation whose process completes it ok, with a value, as its next
// event in the batch. Its operation takes the completion's value then
// (the Pairer keeps an invocation's value only when the operation
// fails, crashes or never completes), so the invocation is given it now
// and its own stays in the scratch memory, in ahead, for pair. Most
// operations complete ok, and their invocations' lists, half of a
// transactional history's, are not copied at all.
func (b *lineBatch) keep(lb *history.ListBuilder, pending map[string]int) {
	clear(pending)
	for i := range b.events {
		e := &b.events[i]
		e.Key, e.Version, e.Token = lb.Keep(e.Key), lb.Keep(e.Version), lb.Keep(e.Token)
		for j := range e.Extra {
			e.Extra[j].Value = lb.Keep(e.Extra[j].Value)
		}
		if e.Type == history.Invoke {
			if j, ok := pending[e.Process]; ok {
				b.events[j].Value = lb.Keep(b.events[j].Value)
			}
			pending[e.Process] = i
			continue
		}
		e.Value = lb.Keep(e.Value)
		j, ok := pending[e.Process]
		if !ok {
			continue
		}
		delete(pending, e.Process)
		if inv := &b.events[j]; e.Type == history.OK && !e.Value.IsNone() {
			b.ahead = append(b.ahead, aheadValue{at: j, own: inv.Value})
			inv.Value = e.Value
		} else {
			inv.Value = lb.Keep(inv.Value)
		}
	}
	for _, j := range pending {
		b.events[j].Value = lb.Keep(b.events[j].Value)
	}
	slices.SortFunc(b.ahead, func(x, y aheadValue) int { return x.at - y.at })
}

// pairBatches runs produce on a goroutine of its own, which sends
// batches of records in the input's order (the last carrying the error
// that stopped it, if any) and returns when send reports false; the
// batches are parsed on every core, each worker with a parser of its own
// (newParser), and their events paired in order. It returns the first
// error in the input's order. When the input's size is known (not -1),
// the Pairer is told how much has been read (Pairer.Expect), so that the
// operations of a long input go into one slice of their number.
func pairBatches(pr *history.Pairer, size int64, produce func(send func(*lineBatch) bool, free batchPool), newParser func() func(*lineBatch)) error {
	// Paired batches wait here for the reader: as many as can be in
	// flight, so that it seldom makes a new one.
	free := make(batchPool, batchesAhead+2)
	stop := make(chan struct{})
	defer close(stop)
	work := make(chan *lineBatch, batchesAhead)
	order := make(chan *lineBatch, batchesAhead)
	go func() {
		defer close(work)
		defer close(order)
		produce(func(b *lineBatch) bool {
			b.done = make(chan struct{})
			select {
			case work <- b:
			case <-stop:
				return false
			}
			select {
			case order <- b:
				return true
			case <-stop:
				return false
			}
		}, free)
	}()
	for range runtime.NumCPU() {
		go func() {
			parse := newParser()
			for b := range work {
				parse(b)
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		if err := b.pair(pr); err != nil {
			return err
		}
		if size > 0 {
			pr.Expect(b.upTo, size)
		}
		free.put(b)
	}
	return nil
}

// batchPool keeps paired batches for the reader to fill again, so that
// a long input's batches are a few, not one per thousand lines.
type batchPool chan *lineBatch

// get returns an empty batch, reused when one is free.
func (p batchPool) get() *lineBatch {
	select {
	case b := <-p:
		return b
	default:
		return &lineBatch{data: make([]byte, 0, batchBytes+batchBytes/8), ends: make([]int, 0, batchLines),
			events: make([]history.Event, 0, batchLines)}
	}
}

// put empties b and keeps it, unless enough are kept.
func (p batchPool) put(b *lineBatch) {
	clear(b.events) // their values belong to the history now
	clear(b.ahead)
	b.scratch.Reset()
	*b = lineBatch{data: b.data[:0], ends: b.ends[:0], lines: b.lines[:0], events: b.events[:0],
		scratch: b.scratch, ahead: b.ahead[:0]}
	select {
	case p <- b:
	default:
	}
}

// pairLines reads the rest of lr's lines in batches after first, parses
// them on every core, and pairs their events in order.
func pairLines(lr *lineReader, pr *history.Pairer, first *lineBatch) error {
	produce := func(send func(*lineBatch) bool, free batchPool) {
		upTo := int64(0) // read before b
		// The first batch is filled already; a batch from the pool may
		// be the same one again, filled anew.
		for b, filled := first, true; ; b, filled = free.get(), false {
			eof := !filled && b.fill(lr, upTo)
			upTo = b.upTo
			if !send(b) || eof || b.readErr != nil {
				return
			}
		}
	}
	return pairBatches(pr, lr.size, produce, func() func(*lineBatch) {
		fp := newFastJSON()
		pending := map[string]int{}
		return func(b *lineBatch) {
			fp.lb.SetScratch(&b.scratch)
			b.parse(fp, true)
			b.keep(&fp.lb, pending)
			fp.lb.SetScratch(nil)
		}
	})
}
