package cli

import (
	"context"
	"io"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// input is a history as read, with what the reader saw of its form.
type input struct {
	h *history.History
	// events is set when the input holds Jepsen events, whose times are
	// nanoseconds unless the file says otherwise.
	events bool
}

// readHistory reads a history file, or standard input for "-". Reading
// stops when ctx is done, even while the input keeps it waiting (a pipe
// whose writer is slow, a FIFO).
func readHistory(ctx context.Context, e *env, file string, opts format.Options) (*input, error) {
	name := file
	r := e.stdin
	if file == "-" {
		name = stdinName
	} else {
		f, err := format.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	if ctx != nil {
		r = &ctxReader{ctx: ctx, r: r}
	}
	res, err := format.ReadResult(name, r, opts)
	if err != nil {
		return nil, err
	}
	return &input{h: res.History, events: res.Events}, nil
}

// formatNames lists the input formats --format accepts.
func formatNames() []string { return format.Formats() }

// ctxReader reads from r until ctx is done. A read that blocks goes on in
// a goroutine of its own, which the reader leaves behind when ctx ends:
// the process is about to stop anyway.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, context.Cause(c.ctx)
	}
	type result struct {
		n   int
		err error
	}
	buf := make([]byte, len(p))
	done := make(chan result, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- result{n, err}
	}()
	select {
	case res := <-done:
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-c.ctx.Done():
		return 0, context.Cause(c.ctx)
	}
}
