// Package props holds property tests that span several checkers: the
// implications between criteria, invariance of verdicts under renaming and
// reordering, and monotonicity under weakening. It has no code of its own.
package props
