package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/histcheck/histcheck/history"
)

// progress shows, on a terminal, what a long check is doing: after a
// second, one line "checking FILE (criterion) … 3s" rewritten in place each
// second, erased when the check ends. Nothing is written when the stream
// is not a terminal, so logs and pipes stay clean.
type progress struct {
	w           io.Writer
	delay, tick time.Duration
}

// newProgress returns the progress line for w: active only when w is a
// terminal.
func newProgress(w io.Writer) *progress {
	if !isTerminal(w) {
		return nil
	}
	return &progress{w: w, delay: time.Second, tick: time.Second}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// start shows label while the work runs; the returned function ends it and
// erases the line if one was shown. A nil progress does nothing.
func (p *progress) start(label string) (stop func()) {
	if p == nil {
		return func() {}
	}
	begin := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		timer := time.NewTimer(p.delay)
		defer timer.Stop()
		shown := false
		for {
			select {
			case <-done:
				if shown {
					fmt.Fprint(p.w, "\r\033[K")
				}
				return
			case <-timer.C:
				secs := int(time.Since(begin).Round(time.Second) / time.Second)
				fmt.Fprintf(p.w, "\r\033[K%s … %ds", history.Escape(label), secs)
				shown = true
				timer.Reset(p.tick)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
		})
	}
}
