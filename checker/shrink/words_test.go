package shrink

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Explain says a violation in words, for the tests that check them. The
// words are package report's, which imports this package, so the external
// test package sets Explain to report.Explain (words_ext_test.go).
var Explain func(h *history.History, criterion string, v checker.Violation) string
