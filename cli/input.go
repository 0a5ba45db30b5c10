package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// jepsenEvents tells, from the file name, the forced format and the first
// bytes of the input, whether the input holds Jepsen events (whose times
// are nanoseconds) rather than operations with call and return times in a
// unit of the writer's choosing.
func jepsenEvents(name, forced string, head []byte) bool {
	switch forced {
	case format.JSONL, format.EDN, format.JepsenLog:
		return true
	case format.Ops, format.Tuples, format.Notation:
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jsonl", ".ndjson", ".edn", ".log":
		return true
	case ".hist":
		return false
	}
	// Every event history has invocations; operation forms never do.
	return bytes.Contains(head, []byte(`"invoke"`)) || bytes.Contains(head, []byte(`":invoke"`)) ||
		bytes.Contains(head, []byte(":type :invoke"))
}
