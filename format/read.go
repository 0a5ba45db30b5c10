package format

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// Names of the encodings.
const (
	JSON      = "json"       // Jepsen events as a JSON array (or any JSON form, detected)
	JSONL     = "jsonl"      // Jepsen events, one JSON object per line
	Ops       = "ops"        // operations with call and return, JSON
	Tuples    = "tuples"     // [process, f, value, call, return] tuples, JSON
	EDN       = "edn"        // Jepsen op maps in EDN
	JepsenLog = "jepsen-log" // the history lines of a Jepsen log
	JepsenTxt = "jepsen-txt" // Jepsen's history.txt: process, type, f, value per line
	Notation  = "notation"   // the textbook notation, A: w(1) [0, 10]
)

// Options say how to read a history.
type Options struct {
	// Format names the encoding, or "" to detect it from the file name's
	// extension and the content.
	Format string
	// Order says how to order the operations of an event history: "events"
	// (their order in the input) or "times" (their recorded times); ""
	// takes the file's own "order" setting, else the order in the input.
	// Operations written with call and return times are always in time
	// order.
	Order string
	// Memory, when set, bounds what reading may hold: a document read
	// whole asks it before its buffer grows, a stream of EDN as it reads,
	// and a value (an EDN form) may take at most MaxValueShare of it.
	Memory *budget.Memory
}

// MaxValueShare is the largest share of the memory budget one value may
// take: reports copy, escape and quote values, so one value several times
// its size would not fit.
const MaxValueShare = 16

// OrderKey is the setting of a self-describing file that names its order.
const OrderKey = "order"

// ReadFile reads a history from a file ("-" is standard input); forced
// names the format, or "" to detect it.
func ReadFile(path string, forced string) (*history.History, error) {
	return ReadFileWith(path, Options{Format: forced})
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, opts Options) (*history.History, error) {
	if path == "-" {
		return ReadWith("<stdin>", os.Stdin, opts)
	}
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadWith(path, f, opts)
}

// Read reads a history from r. name is the file name, for messages and for
// detecting the format by extension; forced names the format, or "" to
// detect it from the extension and the content. Errors are
// *history.InputError naming the file and, wherever possible, the line.
func Read(name string, r io.Reader, forced string) (*history.History, error) {
	return ReadWith(name, r, Options{Format: forced})
}

// ReadWith is Read with options.
func ReadWith(name string, r io.Reader, opts Options) (*history.History, error) {
	res, err := ReadResult(name, r, opts)
	return res.History, err
}

// ReadResult reads a history as ReadWith does and says what reading learnt
// about the input: the format read and how it was chosen, and whether the
// input held Jepsen events. On error the Result is empty.
func ReadResult(name string, r io.Reader, opts Options) (Result, error) {
	res, err := read(name, r, opts.Format, opts.Memory)
	if err == nil {
		err = order(res.History, opts.Order)
	}
	if err == nil {
		err = valueSizes(res.History, opts.Memory.Limit()/MaxValueShare)
	}
	if err != nil {
		var ie *history.InputError
		if !errors.As(err, &ie) {
			return Result{}, &history.InputError{File: name, Msg: err.Error()}
		}
		out := *ie
		out.File = name
		return Result{}, &out
	}
	return res, nil
}

// budgeted carries the memory budget to the readers of whole documents
// and of EDN, and the input's size when known (-1 otherwise), so that a
// document is read into one buffer of its size.
type budgeted struct {
	r    io.Reader
	mem  *budget.Memory
	size int64
}

func (b *budgeted) Read(p []byte) (int, error) { return b.r.Read(p) }

// valueSizes refuses a value longer than limit bytes (0: no limit).
func valueSizes(h *history.History, limit int64) error {
	if limit <= 0 {
		return nil
	}
	for i := range h.Ops {
		o := &h.Ops[i]
		for _, v := range []history.Value{o.Value, o.Key} {
			if n := int64(len(v.Text())); n > limit { // a composite's text holds its elements
				return history.Errorf(0, "operation %d (process %s, %s): its value takes %s, more than the memory budget allows for one value (%s, a %dth of it)",
					i, history.Quote(o.Client), history.Quote(o.F), budget.Size(n), budget.Size(limit), MaxValueShare)
			}
		}
	}
	return nil
}

// order puts an event history in the order asked for, or the file's own.
func order(h *history.History, want string) error {
	if want == "" {
		if v, ok := h.Meta[OrderKey].Str(); ok {
			want = v
		} else if !h.Meta[OrderKey].IsNone() {
			return history.Errorf(0, "the file's order is %s; expected \"events\" or \"times\"", h.Meta[OrderKey])
		}
	}
	if want == "" || h.Order == history.TimeOrder {
		return nil
	}
	o, ok := history.ParseOrdering(want)
	if !ok {
		return fmt.Errorf("unknown order %q; expected events or times", want)
	}
	if o == history.TimeOrder {
		return h.OrderByTimes()
	}
	return nil
}

// read reads a history in the named format or, when forced is "", the
// format the file name's extension or else the content names.
func read(name string, r io.Reader, forced string, mem *budget.Memory) (Result, error) {
	plain := bufio.NewReaderSize(r, bufferSize(r))
	br, name, err := gunzip(name, plain)
	if err != nil {
		return Result{}, err
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	f, how, err := choose(name, br, forced)
	if err != nil {
		return Result{}, err
	}
	size := int64(-1)
	if br == plain {
		size = fileSize(r)
	}
	res, err := f.Read(&budgeted{r: br, mem: mem, size: size})
	if err != nil {
		return Result{}, err
	}
	if res.Format == "" {
		res.Format = f.Name
	}
	res.Chosen = how
	if g := lookup(res.Format); g != nil {
		res.Events = g.Events
	}
	return res, nil
}

// bufferSize is the size of the buffer input is read through: enough for
// content detection's look at the head, or, for a regular file shorter
// than that, enough for the whole file, so that reading many small files
// does not allocate and clear the full size for each.
func bufferSize(r io.Reader) int {
	if n := fileSize(r); n >= 0 && n < sniffLimit {
		return max(int(n)+1, 512)
	}
	return sniffLimit
}

// fileSize is the size of r when it is a regular file, else -1.
func fileSize(r io.Reader) int64 {
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// gunzip returns a reader of the decompressed input when br holds gzip
// (told by its magic bytes, whatever the file is called), with name
// without its .gz suffix, so that the extension inside still names the
// format; otherwise br and name as they are.
func gunzip(name string, br *bufio.Reader) (*bufio.Reader, string, error) {
	if magic, _ := br.Peek(2); !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return br, name, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, name, history.Errorf(0, "reading gzip: %v", err)
	}
	return bufio.NewReaderSize(gzipErrors{zr}, sniffLimit), strings.TrimSuffix(name, ".gz"), nil
}

// gzipErrors says that an error from decompressing is about the gzip
// stream, which has no lines, rather than about the history in it.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = history.Errorf(0, "reading gzip: %v", err)
	}
	return n, err
}

// choose picks the format: the one named, else the one the extension
// names, else the one the head of the input shows.
func choose(name string, br *bufio.Reader, forced string) (*Format, How, error) {
	if forced != "" {
		if f := lookup(forced); f != nil {
			return f, Named, nil
		}
		return nil, 0, fmt.Errorf("unknown format %q; known formats: %s", forced, strings.Join(Formats(), ", "))
	}
	if f := byExtension(name); f != nil {
		return f, ByExtension, nil
	}
	// Detection looks at the head only, so that line formats are still
	// read as a stream.
	head, err := br.Peek(min(sniffLimit, br.Size()))
	if err != nil && err != io.EOF {
		return nil, 0, readFailed(err, 0, "reading")
	}
	if err := checkUTF8(trimPartialRune(head)); err != nil {
		var ie *history.InputError
		if errors.As(err, &ie) {
			// Only the binary formats hold bytes that are not text, and
			// they are never told by content.
			ie.Msg += "; a binary history is told by its name (.bincode for dbcop's, a folder for Cobra's logs) or by --format " + DBCopBincode + " or " + Cobra
		}
		return nil, 0, err
	}
	if f := byContent(head); f != nil {
		return f, ByContent, nil
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, 0, history.Errorf(0, "empty input; expected a history")
	}
	return nil, 0, history.Errorf(0, "cannot tell the format of the input; name it with one of: %s", strings.Join(Formats(), ", "))
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of a head
// cut from a longer input.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// checkUTF8 reports the line of the first invalid UTF-8 sequence.
func checkUTF8(src []byte) error {
	if utf8.Valid(src) {
		return nil
	}
	line := 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return history.Errorf(line, "invalid UTF-8 (byte 0x%02x)", src[i])
		}
		if r == '\n' {
			line++
		}
		i += n
	}
	return nil
}
