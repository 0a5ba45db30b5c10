package format

import "regexp"

// The regular expressions detection ran before it looked for the same
// shapes byte by byte; sniffReference decides with them.
var (
	// ednKeywordRe finds an EDN keyword where a map key or value starts.
	ednKeywordRe = regexp.MustCompile(`[{\[(\s,]:[A-Za-z]`)
	// notationLine finds a line of the notation anywhere.
	notationLine = regexp.MustCompile(`(?m)^\s*[\p{L}\p{N}_.-]+\s*:\s*[\p{L}_][\p{L}\p{N}_-]*\s*(\(.*\))?\s*((->|→)\s*\S+)?\s*\[`)
)
