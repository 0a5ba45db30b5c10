package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// progressEvery is how often the progress line is printed while following.
const progressEvery = time.Second

// startFollow checks the one FILE of check --follow.
func startFollow(ctx context.Context, e *env, o *checkOptions, files []string) error {
	if len(files) != 1 {
		return usagef("--follow takes one FILE (- for standard input)")
	}
	criteria, err := o.settings(e)
	if err != nil {
		return usagef("%s", err.Error())
	}
	var initFlag history.Value
	if o.initSet {
		initFlag = ParseScalar(o.init)
	}
	if !o.criteriaSet {
		criteria = nil
	}
	return runFollow(ctx, e, o, files[0], criteria, initFlag)
}

// runFollow checks one history as it is written (check --follow): each
// violation is printed with its core as soon as it is certain, a progress
// line goes to stderr, and at the end of the input (the writer closed a
// pipe, --follow-until passed without new input, or an interrupt) the
// verdict on the whole history is printed as check prints it.
func runFollow(ctx context.Context, e *env, o *checkOptions, file string, criteria []string, initFlag history.Value) error {
	if ctx == nil {
		ctx = context.Background()
	}
	req := o.request(e, file, criteria, initFlag)
	var shown []check.Found
	stream, err := check.NewStream(req, check.StreamLimits{}, func(f check.Found) {
		shown = append(shown, f)
		printFound(e, o, file, f)
	})
	if err != nil {
		return usagef("%s", err.Error())
	}
	var src io.Reader
	isFile := file != "-"
	if isFile {
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(e.stderr, "histcheck: %s\n", history.Escape(err.Error()))
			return &exitError{code: ExitError}
		}
		defer f.Close()
		src = f
	} else {
		src = e.stdin
	}
	fr := newFollowReader(ctx, src, isFile, o.followUntil)
	fr.name = file
	lines, err := format.NewLineEvents(fr, o.format)
	if err != nil {
		return usagef("%s", err.Error())
	}
	inputErr := checkAhead(lines, stream, func() { printProgress(e, stream.Stats()) })
	out := stream.Finish()
	printProgress(e, stream.Stats())
	if inputErr != nil {
		// The verdicts found before the error are kept; the rest cannot
		// be a pass.
		fmt.Fprintf(e.stderr, "histcheck: %s\n", inputErrorLine(file, inputErr))
	}
	hr := report.NewHistoryOf(file, nil, withoutCores(out), report.TextOnly(true))
	rep := &report.Report{Histories: []report.History{hr}}
	rep.Finish()
	switch o.output {
	case "json":
		if err := report.JSON(e.stdout, rep); err != nil {
			return err
		}
	default:
		if err := report.WriteText(e.stdout, rep, report.TextOptions{}); err != nil {
			return err
		}
	}
	code := ExitOK
	for _, r := range out.Results {
		switch r.Valid {
		case checker.False:
			code = worse(code, ExitInvalid)
		case checker.Unknown:
			code = worse(code, ExitUnknown)
		}
	}
	if inputErr != nil && code != ExitInvalid {
		code = ExitError
	}
	if check.Interrupted(ctx) {
		fmt.Fprintln(e.stderr, "histcheck: interrupted; the verdicts above are what was known when it stopped")
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// batchEvents is how many events are read ahead of the check at most:
// enough that handing a batch over costs little per event.
const batchEvents = 1024

// eventBatch is events read ahead of the check, and the error (io.EOF at
// the end) that ended the input after them.
type eventBatch struct {
	evs []history.Event
	err error
}

// checkAhead feeds every event of lines to stream, reading and decoding
// them in a goroutine of their own so that reading the next lines and
// checking the last ones take a processor each. A batch is handed over
// when it is full or as soon as the check waits for one, so an event is
// not held back while the input is slow. progress is called about once
// a second, by the goroutine that checks. It returns the error that
// ended the input early (nil at its end).
func checkAhead(lines *format.LineEvents, stream *check.Stream, progress func()) error {
	batches := make(chan eventBatch)
	free := make(chan []history.Event, 2)
	stop := make(chan struct{})
	defer close(stop)
	go readAhead(lines, batches, free, stop)
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		var b eventBatch
		select {
		case b = <-batches:
		case <-tick.C:
			progress()
			continue
		}
		for i := range b.evs {
			if err := stream.Add(&b.evs[i]); err != nil {
				stream.Stop(err)
				return err
			}
		}
		select {
		case free <- b.evs[:0]:
		default:
		}
		if errors.Is(b.err, io.EOF) {
			return nil
		}
		if b.err != nil {
			stream.Stop(b.err)
			return b.err
		}
	}
}

// readAhead decodes lines' events into batches until the input ends or
// stop is closed.
func readAhead(lines *format.LineEvents, batches chan<- eventBatch, free <-chan []history.Event, stop <-chan struct{}) {
	next := func() []history.Event {
		select {
		case evs := <-free:
			return evs
		default:
			return make([]history.Event, 0, batchEvents)
		}
	}
	evs := next()
	for {
		// Decoded in place, in the batch: an event is a couple of
		// hundred bytes.
		n := len(evs)
		evs = append(evs, history.Event{})
		if err := lines.Read(&evs[n]); err != nil {
			select {
			case batches <- eventBatch{evs: evs[:n], err: err}:
			case <-stop:
			}
			return
		}
		if len(evs) < batchEvents {
			// Hand over what there is if the check is waiting for it.
			select {
			case batches <- eventBatch{evs: evs}:
				evs = next()
			default:
			}
			continue
		}
		select {
		case batches <- eventBatch{evs: evs}:
			evs = next()
		case <-stop:
			return
		}
	}
}

// withoutCores is the final outcome without the cores, which were printed
// when each violation was found, with the operations they name.
func withoutCores(out check.Outcome) check.Outcome {
	for i := range out.Results {
		out.Results[i].Core = nil
		out.Results[i].Violations = nil
		out.Results[i].Witness = nil
	}
	if out.Refused != nil {
		// The input's error was printed; the verdicts found stand.
		out.Refused = nil
	}
	return out
}

// printFound prints a violation as it is found: its verdict line and
// core as check prints them for the operations kept.
func printFound(e *env, o *checkOptions, file string, f check.Found) {
	fmt.Fprintf(e.stderr, "histcheck: %s: at %s, violation found after %d events: operation %s (invoked on line %d) cannot be linearized\n", history.Escape(file), time.Now().Format("15:04:05.000000"), f.Events, history.Escape(f.Op.Label()), f.Op.Line)
	if o.output != "text" {
		return
	}
	out := check.Outcome{Settled: true, Model: strings.Join(o.model, ","), Results: []check.Result{f.Result}}
	hr := report.NewHistoryOf(file, f.History, out, report.TextOnly(true))
	_ = report.WriteText(e.stdout, &report.Report{Histories: []report.History{hr}}, report.TextOptions{Facts: o.verbose})
}

// printProgress prints the progress line.
func printProgress(e *env, st check.StreamStats) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(e.stderr, "histcheck: %d events read, %d operations, %d settled, %d open, %d keys (%d failed, %d unknown), memory %s\n",
		st.Events, st.Ops, st.Settled, st.Open, st.Objects, st.Failed, st.Unknown, budget.Size(int64(ms.Sys-ms.HeapReleased)))
}

// followReader reads an input that is still being written: at the end of
// a file it waits for more (an end of a pipe is its end), until the
// context ends or, with until, that long passes without new input.
type followReader struct {
	name  string
	ctx   context.Context
	ch    chan chunk
	free  chan []byte // buffers to read into, handed back once consumed
	buf   []byte
	held  []byte // the buffer buf is a part of
	until time.Duration
	idle  func()
	err   error
}

type chunk struct {
	b   []byte
	err error
}

func newFollowReader(ctx context.Context, r io.Reader, poll bool, until time.Duration) *followReader {
	fr := &followReader{ctx: ctx, ch: make(chan chunk, 4), free: make(chan []byte, 6), until: until, idle: func() {}}
	for i := 0; i < cap(fr.free); i++ {
		fr.free <- make([]byte, 256<<10)
	}
	go func() {
		var read int64
		for {
			var b []byte
			select {
			case b = <-fr.free: // a buffer the reader is done with
			case <-ctx.Done():
				return
			}
			n, err := r.Read(b[:cap(b)])
			read += int64(n)
			if n > 0 {
				select {
				case fr.ch <- chunk{b: b[:n]}:
				case <-ctx.Done():
					return
				}
			} else {
				fr.free <- b // never blocks: it came from there
			}
			if errors.Is(err, io.EOF) && poll {
				if f, ok := r.(*os.File); ok {
					if st, serr := f.Stat(); serr == nil && st.Size() < read {
						err = fmt.Errorf("the file was truncated while it was followed: it now has %d bytes, %d were read", st.Size(), read)
						select {
						case fr.ch <- chunk{err: err}:
						case <-ctx.Done():
						}
						return
					}
				}
				select {
				case <-time.After(20 * time.Millisecond):
					continue
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				select {
				case fr.ch <- chunk{err: err}:
				case <-ctx.Done():
				}
				return
			}
		}
	}()
	return fr
}

// Read implements io.Reader.
func (fr *followReader) Read(p []byte) (int, error) {
	if len(fr.buf) > 0 {
		n := copy(p, fr.buf)
		fr.buf = fr.buf[n:]
		return n, nil
	}
	if fr.held != nil {
		fr.free <- fr.held // never blocks: it came from there
		fr.held = nil
	}
	if fr.err != nil {
		return 0, fr.err
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var silence <-chan time.Time
	if fr.until > 0 {
		t := time.NewTimer(fr.until)
		defer t.Stop()
		silence = t.C
	}
	for {
		select {
		case c := <-fr.ch:
			if c.err != nil {
				fr.err = c.err
				return 0, c.err
			}
			n := copy(p, c.b)
			fr.buf, fr.held = c.b[n:], c.b
			return n, nil
		case <-tick.C:
			fr.idle()
		case <-silence:
			fr.err = io.EOF
			return 0, io.EOF
		case <-fr.ctx.Done():
			fr.err = io.EOF
			return 0, io.EOF
		}
	}
}
