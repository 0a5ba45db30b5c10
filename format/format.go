package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// Format is one encoding of histories: how to recognise it and how to read
// it, and how to write it where histcheck can. Every encoding is one value
// in the package's list of formats (see All); Read, Write, the command
// line's --format and --to flags and their help all come from that list.
type Format struct {
	// Name is how the format is named to Read and on the command line.
	Name string
	// Summary describes the encoding in a few words.
	Summary string
	// Extensions are the lower-case file name extensions, with the dot,
	// that name this format without looking at the content.
	Extensions []string
	// Events reports that the format holds Jepsen events, whose times are
	// nanoseconds (Jepsen's :time) unless the file names its time_unit,
	// rather than operations with call and return times in a unit of the
	// writer's choosing.
	Events bool
	// Transactions reports that the format holds read/write transactions
	// only (the research checkers' formats): its writer refuses any other
	// history.
	Transactions bool
	// Sniff says how surely head, the first bytes of an input (up to 64
	// KiB, cut anywhere), is in this format: 0 when it is not, higher when
	// surer. Detection takes the surest format, the earlier one in the
	// list on a tie. Nil when the format is never detected by content
	// (it is then named, or found inside another format, as JSON
	// documents tell events, operations and tuples apart).
	Sniff func(head []byte) int
	// Read reads a whole input in this format; r starts after any byte
	// order mark. It sets Result.History and, when the content turned out
	// to be another registered format's form, Result.Format; ReadResult
	// fills in the rest.
	Read func(r io.Reader) (Result, error)
	// Write writes a history in this format, or is nil when the format is
	// read only.
	Write func(w io.Writer, h *history.History) error
}

// Result is a history as read, with what reading learnt about the input.
// The history itself carries the rest of what the file said: its settings
// (History.Meta), warnings (History.Warnings) and whether it recorded
// times (History.Timed).
type Result struct {
	// History is the history read, in the order Options asked for.
	History *history.History
	// Format names the encoding the input was read as: the named or
	// detected format, or the form found inside it (a .json file holding
	// operations is read as "ops").
	Format string
	// Chosen says how the format was chosen.
	Chosen How
	// Events reports that the input held Jepsen events (see Format.Events).
	Events bool
}

// How says how the format of an input was chosen.
type How int

// The ways a format is chosen, in the order Read tries them.
const (
	Named       How = iota + 1 // given by the caller
	ByExtension                // from the file name's extension
	ByContent                  // from the first bytes of the input
)

// String names the way, for messages.
func (h How) String() string {
	switch h {
	case Named:
		return "named"
	case ByExtension:
		return "by extension"
	case ByContent:
		return "by content"
	}
	return "unknown"
}

// formats is the list of formats, in the order they are listed to users.
// A new encoding is a file defining its Format value, added here.
func formats() []*Format {
	return []*Format{&jsonFormat, &jsonlFormat, &opsFormat, &tuplesFormat, &ednFormat, &jepsenLogFormat, &jepsenTxtFormat, &notationFormat, &plumeFormat, &awditTestFormat, &dbcopFormat, &dbcopHistFormat, &dbcopBincodeFormat, &cobraFormat}
}

// All returns the formats histcheck knows, in the order they are listed to
// users. The values are copies: changing them changes nothing here.
func All() []Format {
	fs := formats()
	out := make([]Format, len(fs))
	for i, f := range fs {
		out[i] = f.clone()
	}
	return out
}

// clone copies f, so that callers cannot change the list.
func (f *Format) clone() Format {
	c := *f
	c.Extensions = append([]string(nil), f.Extensions...)
	return c
}

// Lookup returns (a copy of) the format of that name.
func Lookup(name string) (Format, bool) {
	if f := lookup(name); f != nil {
		return f.clone(), true
	}
	return Format{}, false
}

func lookup(name string) *Format {
	for _, f := range formats() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Formats lists the names Read accepts.
func Formats() []string {
	var names []string
	for _, f := range formats() {
		names = append(names, f.Name)
	}
	return names
}

// Writable lists the names Write accepts.
func Writable() []string {
	var names []string
	for _, f := range formats() {
		if f.Write != nil {
			names = append(names, f.Name)
		}
	}
	return names
}

// byExtension returns the format a file name's extension names, or nil.
func byExtension(name string) *Format {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return nil
	}
	for _, f := range formats() {
		for _, e := range f.Extensions {
			if e == ext {
				return f
			}
		}
	}
	return nil
}

// byContent returns the format whose Sniff is surest of head, or nil.
func byContent(head []byte) *Format {
	var best *Format
	bestScore := 0
	for _, f := range formats() {
		if f.Sniff == nil {
			continue
		}
		if s := f.Sniff(head); s > bestScore {
			best, bestScore = f, s
		}
	}
	return best
}

// readWhole reads r to its end, or to limit bytes, asking mem before each
// time its buffer grows. The buffer starts at size+1 bytes when the size
// is known (size >= 0), so that a file is read into one buffer that does
// not grow; otherwise it grows by half, so that reading holds at most two
// and a half times the input while it grows.
func readWhole(r io.Reader, limit int, size int64, mem *budget.Memory) ([]byte, error) {
	first := 64 << 10
	if size >= 0 {
		// One byte more, so that the read that meets the end finds room.
		first = int(min(size+1, int64(limit)))
	}
	buf := make([]byte, 0, min(first, 64<<10))
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			grown := min(cap(buf)+cap(buf)/2, limit)
			if cap(buf) < first {
				grown = first
			}
			if err := mem.Allow(int64(grown), "reading the input"); err != nil {
				return nil, history.Errorf(0, "the input does not fit in memory (%d bytes read): %v; "+
					"raise --max-memory, or write a history this long as JSON Lines, which is read as a stream", len(buf), err)
			}
			buf = append(make([]byte, 0, grown), buf...)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readFailed(err, int64(len(buf)), "reading")
		}
	}
	return buf, nil
}

// buffered writes through a buffer, as the writers write small pieces.
func buffered(write func(w *bufio.Writer, h *history.History) error) func(io.Writer, *history.History) error {
	return func(w io.Writer, h *history.History) error {
		bw := bufio.NewWriter(w)
		if err := write(bw, h); err != nil {
			return err
		}
		return bw.Flush()
	}
}

// streamed adapts a reader of a line format.
func streamed(read func(r io.Reader) (*history.History, error)) func(io.Reader) (Result, error) {
	return func(r io.Reader) (Result, error) {
		h, err := read(r)
		return Result{History: h}, err
	}
}

// document adapts a reader of a format read whole (the JSON forms): it
// reads up to DocumentLimit bytes, within the memory budget when r carries
// one, checks they are UTF-8, that no value is too long for the budget
// (jsonValuesFit), and parses them.
func document(parse func(src []byte) (Result, error)) func(io.Reader) (Result, error) {
	return func(r io.Reader) (Result, error) {
		var mem *budget.Memory
		size := int64(-1)
		if b, ok := r.(*budgeted); ok {
			mem, size = b.mem, b.size
		}
		src, err := readWhole(r, DocumentLimit+1, size, mem)
		if err != nil {
			return Result{}, err
		}
		if len(src) > DocumentLimit {
			return Result{}, history.Errorf(0, "input longer than %d bytes; write a history this long as JSON Lines, which is read as a stream", DocumentLimit)
		}
		if err := checkUTF8(src); err != nil {
			return Result{}, err
		}
		if err := jsonValuesFit(src, mem.Limit()/MaxValueShare, mem); err != nil {
			return Result{}, err
		}
		return parse(src)
	}
}

// readFailed is the error of a read that failed after n bytes (n < 0:
// not counted): when the memory budget stopped it (its watch cancels
// reading), the input does not fit in memory, as when reading asks the
// budget itself; otherwise what failed, wrapped.
func readFailed(err error, n int64, what string) error {
	var ex *budget.ExceededError
	if errors.As(err, &ex) && n >= 0 {
		return history.Errorf(0, "the input does not fit in memory (%d bytes read): %v; raise --max-memory", n, err)
	}
	if errors.As(err, &ex) {
		return history.Errorf(0, "the input does not fit in memory (%s): %v; raise --max-memory", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
