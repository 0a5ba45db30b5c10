package cli

import (
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// readHistory reads a history file, or standard input for "-".
func readHistory(e *env, file, forced string) (*history.History, error) {
	if file == "-" {
		return format.Read(stdinName, e.stdin, forced)
	}
	return format.ReadFile(file, forced)
}

// formatNames lists the input formats --format accepts.
func formatNames() []string { return format.Formats() }
