package jepsen

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// Options are the settings of Jepsen's checkers, given as model options
// (name=value) or by the history's own settings of the same names.
type Options struct {
	// TotalAmount is the total every bank read must keep; HasTotal false
	// takes the first read's sum, as Jepsen does.
	TotalAmount int64
	HasTotal    bool
	// NegativeBalances allows negative bank balances.
	NegativeBalances bool
	// MaxTransfer is accepted for elle-cli's sake; the bank checker does
	// not use it.
	MaxTransfer int64
	// GroupSize is how many keys each long-fork read reads; 0 takes the
	// number of keys of the first read transaction.
	GroupSize int
	// Linearizable makes stale set-full elements invalid.
	Linearizable bool
}

// Option names, per model.
const (
	OptTotalAmount      = "total-amount"
	OptNegativeBalances = "negative-balances"
	OptMaxTransfer      = "max-transfer"
	OptGroupSize        = "group-size"
	OptLinearizable     = "linearizable"
)

// Accepted lists the options each model takes.
var Accepted = map[string][]string{
	Bank:     {OptTotalAmount, OptNegativeBalances, OptMaxTransfer},
	LongFork: {OptGroupSize},
	SetFull:  {OptLinearizable},
}

// ParseOptions reads the options of model from settings (name to value)
// and, for those not given, from meta (the history's own settings, under
// the same names or with underscores). An option the model does not take
// is an error.
func ParseOptions(model string, settings map[string]string, meta map[string]history.Value) (Options, error) {
	accepted := Accepted[model]
	var names []string
	for name := range settings {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains(accepted, name) {
			return Options{}, unknownOption(model, name, accepted)
		}
	}
	var o Options
	for _, name := range accepted {
		text, ok := settings[name]
		if !ok {
			text, ok = metaSetting(meta, name)
		}
		if !ok {
			continue
		}
		if err := o.set(name, text); err != nil {
			return Options{}, fmt.Errorf("model %s: option %s: %w", model, name, err)
		}
	}
	return o, nil
}

func unknownOption(model, name string, accepted []string) error {
	if len(accepted) == 0 {
		return fmt.Errorf("model %s takes no options (given %s)", model, history.Quote(name))
	}
	return fmt.Errorf("model %s has no option %s (accepted: %s)", model, history.Quote(name), strings.Join(accepted, ", "))
}

// metaSetting finds name in the history's settings, with dashes or
// underscores.
func metaSetting(meta map[string]history.Value, name string) (string, bool) {
	for _, n := range []string{name, strings.ReplaceAll(name, "-", "_")} {
		if v, ok := meta[n]; ok && !v.IsNone() {
			if s, ok := v.Str(); ok {
				return s, true
			}
			return v.String(), true
		}
	}
	return "", false
}

func (o *Options) set(name, text string) error {
	text = strings.TrimSpace(text)
	switch name {
	case OptNegativeBalances, OptLinearizable:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("want true or false, got %s", history.Quote(text))
		}
		if name == OptLinearizable {
			o.Linearizable = b
		} else {
			o.NegativeBalances = b
		}
		return nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("want a whole number of at least 0, got %s", history.Quote(text))
	}
	switch name {
	case OptTotalAmount:
		o.TotalAmount, o.HasTotal = n, true
	case OptMaxTransfer:
		o.MaxTransfer = n
	case OptGroupSize:
		o.GroupSize = int(n)
	}
	return nil
}
