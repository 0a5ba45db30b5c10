package format

import (
	"bytes"
	"io"
	"regexp"
	"sync"

	"github.com/histcheck/histcheck/history"
)

// jepsenTxtFormat is Jepsen's history.txt: one operation event per line,
// its process, type, f and value separated by tabs (and an error after
// them, which is ignored), as a store directory holds beside history.edn.
var jepsenTxtFormat = Format{
	Name:    JepsenTxt,
	Summary: "Jepsen's history.txt: process, type, f and value per line, tab-separated",
	Events:  true,
	Sniff:   sniffJepsenTxt,
	Read: streamed(func(r io.Reader) (*history.History, error) {
		return readEventLines(r, txtLineRe().FindSubmatch, txtShape)
	}),
}

// txtShape describes a history.txt line in messages.
const txtShape = "<process> TAB <:type> TAB <:f> TAB <value>"

// txtLineRe matches a line of history.txt: process, :type, f and the value
// (EDN), tab-separated; anything after a further tab (the error) is left
// out.
// It is compiled on first use.
var txtLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([^\t]+)\t:(invoke|ok|fail|info)\t([^\t]+)(?:\t([^\t]*))?(?:\t.*)?$`)
})

// sniffJepsenTxt claims input whose first line is a history.txt line.
func sniffJepsenTxt(head []byte) int {
	first, _, _ := bytes.Cut(bytes.TrimLeft(head, "\r\n"), []byte("\n"))
	// A history.txt line has a tab before its :type; the expression would
	// otherwise run over a first line as long as the head.
	if bytes.Contains(first, []byte("\t:")) && txtLineRe().Match(bytes.TrimSuffix(first, []byte("\r"))) {
		return 5
	}
	return 0
}
