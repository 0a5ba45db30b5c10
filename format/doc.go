// Package format reads histories from the encodings histcheck accepts and
// writes them back as Jepsen events.
//
// Encodings (names as given to Read, detected when not given):
//
//   - json: Jepsen events as a JSON array of objects {"process", "type"
//     (invoke, ok, fail, info; a leading colon is allowed), "f", "value",
//     "time", "index", "key", "version", "token"}; other fields are kept as
//     extra fields. A file named .json may instead hold operations (form
//     "ops"), tuples (form "tuples") or a wrapper object {"model": …,
//     "init": …, "history": [...]}, told apart by content; the wrapper's
//     other entries become History.Meta.
//   - jsonl: the same event objects, one per line (.jsonl, .ndjson).
//   - ops: an array of {"process", "f", "value", "call", "return", "type"};
//     "return": null means the outcome is unknown; "type" is ok (default),
//     fail or info.
//   - tuples: an array of [process, f, value, call, return] with an optional
//     sixth element, the status; return may be null.
//   - edn: Jepsen op maps in a vector or list, or one after another, with ;
//     comments (.edn). Keywords and symbols become strings without the
//     colon; bigints (1N) are read, ratios and tagged literals are rejected.
//     Reader metadata (^{…}, ^:keyword, ^Symbol) is skipped wherever it
//     stands, as EDN readers do: it belongs to the next form, not the data.
//     A single map with a :history entry is a wrapper like the JSON one.
//   - jepsen-log: the history lines of a Jepsen log (.log),
//     "INFO  jepsen.util - <process> <:type> <:f> <value>", the value in EDN;
//     other lines are skipped.
//   - notation: the textbook notation (.hist), described below.
//
// Each encoding is a Format value in one list (All, Lookup): its name, file
// name extensions, how it is recognised from the first bytes of an input,
// its reader and, for json, jsonl and edn, its writer. Read takes the named
// format, else the one the file name's extension names, else the one the
// content shows; ReadResult also says which format was read, how it was
// chosen and whether the input held Jepsen events.
//
// In ops, tuples and notation the abbreviations w and r are read as write
// and read. Time fields are integers in any unit; call and return are
// written by the user, while Jepsen events get their times from "time" or,
// without it, from their position in the input.
//
// A new encoding is one file holding its Format value and its reader (and
// writer), plus its entry in the list in format.go. Its Sniff must score
// the inputs of the other formats 0, or below the score of the format they
// are in, so that they are still detected as before.
//
// # Limits and streaming
//
// JSON Lines, Jepsen logs and the notation are read line by line as a
// stream, and Jepsen events are paired as they are read, so memory grows
// with the operations, not with the text. A line longer than RecordLimit
// (16 MiB) is an error, found without reading the rest of it. EDN is read
// as a stream too, form by form, the op maps of a vector (or of a wrapper's
// :history) one at a time; one form may be at most DocumentLimit (1 GiB),
// or a MaxValueShare of the memory budget. JSON documents are read whole,
// up to DocumentLimit; before one is parsed, a scan refuses any value in
// it (an event, a tuple, a field's value) longer than that share, and a
// line of JSON Lines, a Jepsen log or the notation longer than it is
// refused as it is read, so that a value too long for the budget is never
// built. Values may nest
// 1000 deep. Integers in values may have any size; times, indexes and
// numeric processes must fit in 64 bits. Jepsen event times may not be
// negative, but for -1, jepsen.history's "no time", read as no time at
// all; and the events of one process must be in time order (other
// processes may lag); intervals written as call and return may use any
// integers.
//
// # Textbook notation
//
// One operation per line: process, colon, operation, interval, and
// optionally a status (ok, fail or info; ok by default):
//
//	A: w(1) [0, 10]
//	B: r(0) [2, 4]
//	B: r->0 [2, 4]          same as r(0); "→" may be used for "->"
//	C: cas(1, 2) [3, 5]     compare-and-set from 1 to 2
//	D: w(3) [4, ?]          return unknown: the outcome is unknown (info)
//	E: w(3) [4, 6] fail     the write did not happen
//	F: w(x, 1) [0, 3]       with a key: write 1 to x
//	G: r(x)->1 [4, 5]       read of key x returned 1; also r(x, 1)
//	H: cas(x, 1, 2) [6, 7]  compare-and-set on key x
//	I: acquire [0, 1]       an operation without value (nil)
//
// The arguments of an operation are its value, or the key and the value;
// with a result arrow, the argument (if any) is the key and the result is
// the value. So r(x) reads the value x, while r(x)->? reads key x with an
// unknown result. Values are integers, decimals, nil or ? (nil), true,
// false, quoted strings, or bare words (strings). The return time may be
// ?, inf or ∞.
//
// '#' starts a comment; blank lines are skipped. Before the first
// operation, header lines give settings that become History.Meta:
//
//	model: register
//	init: 0
//
// (also nil_read and time_unit). Following the textbook, Meta["init"] is 0
// unless the header says otherwise, when the header names no model or a
// register or kv model (queues, sets and locks keep their own default);
// the same holds for textbook tuples in JSON unless their wrapper says
// otherwise.
//
// # The research checkers' formats
//
// Plume, PolySI, AWDIT, IsoVista, dbcop and Cobra record sessions of
// read/write transactions, without times; each is read as rw-register
// transactions (operation "txn", value [[w k v] [r k v] …]), a session
// per process, the k-th transaction of a session called at k and
// returning at k+1:
//
//	plume       w(1,5,0,0)          r|w(key,value,session,txn); txn -1: an aborted write; 0 is the initial value
//	awdit-test  w 1 5               r|w KEY VALUE; ----- between transactions, ===== between sessions
//	dbcop       {"params": …, "data": [[{"events": [{"Write": {"variable": 1, "version": 5}}], "committed": true}]]}
//	dbcop-hist  [x:=5 y==? z==2]!   a transaction per [ ]; ! not committed; --- between sessions
//	dbcop-bincode  binary (history.bincode): bincode of dbcop's History, little-endian
//	cobra       binary: 'S' txn, 'W' id key value, 'R' txn id key value, 'C' txn (a folder of T*.log)
//
// See docs/format.md for how each marks aborted transactions and the
// initial state. Write writes all but cobra.
//
// # Writing
//
// Write produces Jepsen events (json, jsonl or edn) with explicit times, so
// reading its output gives the same operations. JSON has no sets and only
// string map keys: sets are written as arrays and other maps as arrays of
// [key value] pairs; EDN keeps them. History.Meta travels in the JSON and
// EDN wrapper, not in JSON Lines.
package format
