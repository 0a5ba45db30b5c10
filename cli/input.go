package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

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

// readHistory reads a history file, or standard input for "-".
func readHistory(e *env, file string, opts format.Options) (*input, error) {
	name := file
	var r io.Reader = e.stdin
	if file == "-" {
		name = stdinName
	} else {
		f, err := os.Open(file)
		if err != nil {
			return nil, &history.InputError{File: file, Msg: fmt.Sprintf("cannot open: %v", unwrapped(err))}
		}
		defer f.Close()
		r = f
	}
	res, err := format.ReadResult(name, r, opts)
	if err != nil {
		return nil, err
	}
	return &input{h: res.History, events: res.Events}, nil
}

func unwrapped(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// formatNames lists the input formats --format accepts.
func formatNames() []string { return format.Formats() }
