package format

import "regexp"

// The regular expressions detection ran before it looked for the same
// shapes byte by byte, and those it compiles on first use, under the
// names sniffReference decides with.
var (
	// ednKeywordRe finds an EDN keyword where a map key or value starts.
	ednKeywordRe = regexp.MustCompile(`[{\[(\s,]:[A-Za-z]`)
	// notationLine finds a line of the notation anywhere.
	notationLine = regexp.MustCompile(`(?m)^\s*[\p{L}\p{N}_.-]+\s*:\s*[\p{L}_][\p{L}\p{N}_-]*\s*(\(.*\))?\s*((->|→)\s*\S+)?\s*\[`)
	logLine      = logLineRe()
	logMarker    = logMarkerRe()
	txtLine      = txtLineRe()
)
