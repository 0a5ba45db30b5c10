// Package porcupine is a drop-in for Porcupine v1.3.1's Go API
// (github.com/anishathalye/porcupine): the same types, functions and
// behaviour, so that a test suite moves to histcheck by changing one
// import path. Underneath, histcheck's linearizability search decides:
// a Model becomes a histcheck model whose states are interned through
// its Hash and Equal, so the search's memo compares integers and each
// step the model was asked is asked once; partitions are checked in
// parallel, each in a goroutine of its own as Porcupine does. A partition
// of 16 operations or more is first stepped through every state its
// operations can reach (within bounds): the table tells the search which
// operations never change the state, and a partition of 64 or more on
// which the model acts as a compare-and-set register goes to histcheck's
// register sweep, which decides histories of 32 and 64 clients.
//
// Beyond Porcupine: a verbose check of an illegal history also carries
// histcheck's explanation and core ([LinearizationInfo.Explanation]),
// which [Visualize] shows; [ToHistory] turns a history of operations into
// a history.History, so that the same record can be checked for the
// criteria weaker than linearizability, and [FromHistory] turns one (a
// history.Recorder's, say) into operations for this package.
//
// Differences: the search's memo is bounded by histcheck's default
// memory limit (linear.DefaultMaxMemory), past which the verdict is
// Unknown rather than the process running out of memory; a model
// without Init, or whose functions panic during a check, panics in the
// goroutine that called the check (a *ModelPanic names the operation),
// where Porcupine's panics in a goroutine of its own and ends the
// process; operations that return before their call and events without
// their pair make their partition Illegal, as in Porcupine, and the
// explanation says what is wrong.
package porcupine
