package cli

import (
	"context"

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
	if file != "-" && (opts.Format == "" || opts.Format == format.Cobra) && format.LogFolder(file) {
		res, err := format.ReadLogFolder(file)
		if err != nil {
			return nil, err
		}
		return &input{h: res.History}, nil
	}
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
		r = format.ContextReader(ctx, r)
	}
	res, err := format.ReadResult(name, r, opts)
	if err != nil {
		return nil, err
	}
	return &input{h: res.History, events: res.Events}, nil
}

// formatNames lists the input formats --format accepts.
func formatNames() []string { return format.Formats() }
