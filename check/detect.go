package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// chooseSpec picks the model or models: the flag, else the file's own,
// else one detected from the operation names. how says where a choice not
// made by the flag came from.
func chooseSpec(ms []suite.Model, flag *modelSpec, h *history.History) (spec modelSpec, how string, err error) {
	if flag != nil {
		return *flag, "", nil
	}
	if v := h.Meta["model"]; !v.IsNone() {
		name, ok := v.Str()
		if !ok {
			return spec, "", fmt.Errorf("the file names its model as %s; expected a model name or KEY=MODEL pairs", v)
		}
		spec, err = ParseModels(name)
		if err != nil {
			return spec, "", fmt.Errorf("the file's model: %v", err)
		}
		return spec, "from the file", nil
	}
	name, err := detectModel(h)
	if err != nil {
		return spec, "", fmt.Errorf("%v; give -m MODEL, or -m KEY=MODEL,... for a model per key (accepted: %s)", err, strings.Join(suite.Names(ms), ", "))
	}
	return modelSpec{all: name}, detected, nil
}

// detected is how a model found from the operation names is announced.
const detected = "detected from operation names"

// detectModel names the built-in model whose operations the history uses.
func detectModel(h *history.History) (string, error) {
	names := map[string]bool{}
	keyed := false
	for i := range h.Ops {
		names[h.Ops[i].F] = true
		if !h.Ops[i].Key.IsNone() {
			keyed = true
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("cannot tell the model of a history without operations")
	}
	only := func(allowed ...string) bool {
		for n := range names {
			if !slices.Contains(allowed, n) {
				return false
			}
		}
		return true
	}
	lockOps := []string{"acquire", "release", "lock", "unlock"}
	leaseOps := []string{"renew", "refresh", "keepalive"}
	switch {
	case only(txn.F):
		return txnModel(h), nil
	case only(lockOps...):
		return "mutex", nil
	case only(append(lockOps, leaseOps...)...):
		return "lease", nil
	case keyed && (names["acquire"] || names["lock"]):
		return "", fmt.Errorf("the keys %s hold objects of different kinds (operations %s)",
			strings.Join(unionKeys(h), ", "), strings.Join(sortedNames(names), ", "))
	case !keyed && only("enqueue", "dequeue"):
		return "fifo-queue", nil
	case keyed || names["append"] || names["get"] || names["put"]:
		return "kv", nil
	case names["cas"] || names["compare-and-set"]:
		return "cas-register", nil
	case only("read", "write", "r", "w"):
		return "register", nil
	}
	return "", fmt.Errorf("cannot tell the model from the operation names %s", strings.Join(sortedNames(names), ", "))
}

// txnModel names the transactional model of a history of transactions:
// multi-register when every transaction uses Knossos's names (read,
// write), else list-append when some transaction appends, else
// rw-register.
func txnModel(h *history.History) string {
	knossos := len(h.Ops) > 0
	for i := range h.Ops {
		knossos = knossos && txn.KnossosNames(h.Ops[i].Value)
	}
	if knossos {
		return "multi-register"
	}
	for i := range h.Ops {
		mops, err := txn.Parse(h.Ops[i].Value)
		if err == nil && txn.Workload([]txn.Txn{{Mops: mops}}) == txn.Append {
			return "list-append"
		}
	}
	return "rw-register"
}

func sortedNames(names map[string]bool) []string {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return list
}
