package shrink

import "github.com/histcheck/histcheck/history"

// build is buildFor with the operations of the cas-register model, for
// tests.
func build(h *history.History, forms []form) (*history.History, []int) {
	return buildFor(h, registerInfo(false), forms)
}
