package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
)

// Criterion is what histcheck knows of a consistency criterion. Every
// list of criteria (the ladder's, "-c all", the command line's help) is
// derived from the table Criteria returns.
type Criterion struct {
	// Name is the criterion as named on the command line and in reports.
	Name string
	// Implies lists the criteria every history that satisfies this one
	// satisfies too, directly (the ladder's edges).
	Implies []string
	// Local criteria hold of a history exactly when they hold of each
	// object (key) on its own, so a history is checked object by object.
	Local bool
	// Witness reports that a verdict true comes with an order of the
	// operations that shows it.
	Witness bool
	// Cores reports that violations shrink to minimal cores.
	Cores bool
}

// All asks for every criterion a model supports, and the ladder.
const All = "all"

// table is every criterion, strongest first: the non-transactional
// criteria, then the isolation levels. Implications come from the
// ladder's edges, so that the two cannot disagree.
var table = func() []Criterion {
	local := map[string]bool{checker.Linearizable: true}
	witness := map[string]bool{checker.Linearizable: true, checker.Sequential: true}
	for _, l := range isolation.Levels {
		witness[l] = true // a commit order (rw-register histories)
	}
	names := append(append(append([]string(nil), checker.AllCriteria...), elle.Levels...), isolation.Added...)
	// The edges are listed once: copying them for every name was most of
	// the package's start-up.
	edges := append(ladder.Implies(), ladder.IsolationImplies()...)
	out := make([]Criterion, 0, len(names))
	for _, name := range names {
		c := Criterion{Name: name, Local: local[name], Witness: witness[name], Cores: witness[name] && !isolation.Known(name)}
		for _, e := range edges {
			if e.Strong == name {
				c.Implies = append(c.Implies, e.Weak)
			}
		}
		out = append(out, c)
	}
	return out
}()

// Criteria returns every criterion, strongest first.
func Criteria() []Criterion {
	out := make([]Criterion, len(table))
	for i, c := range table {
		c.Implies = slices.Clone(c.Implies)
		out[i] = c
	}
	return out
}

// Lookup finds a criterion by name.
func Lookup(name string) (Criterion, bool) {
	for _, c := range table {
		if c.Name == name {
			return c, true
		}
	}
	return Criterion{}, false
}

// Names lists the criteria's names, strongest first.
func Names() []string {
	out := make([]string, len(table))
	for i, c := range table {
		out[i] = c.Name
	}
	return out
}

func hasCore(name string) bool {
	c, ok := Lookup(name)
	return ok && c.Cores
}

// ParseCriteria checks a list of criterion names (or All, or the rule of
// Jepsen's checkers, jepsen.Criterion, which is a model's own check rather
// than a criterion of the ladder), drops repeats
// and empty names, and gives linearizability for an empty list.
func ParseCriteria(names []string) ([]string, error) {
	accepted := append(Names(), jepsen.Criterion, All)
	var out []string
	for _, c := range names {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !slices.Contains(accepted, c) {
			return nil, fmt.Errorf("unknown consistency criterion %q (accepted: %s)", c, strings.Join(accepted, ", "))
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return []string{checker.Linearizable}, nil
	}
	return out, nil
}

// ParseAnomalies checks a comma list of anomalies asked for by name (see
// elle.Anomalies), and drops repeats and empty names.
func ParseAnomalies(list string) ([]string, error) {
	return parseNames(list, func(a string) error {
		if !slices.Contains(elle.Anomalies, a) {
			return fmt.Errorf("unknown anomaly %q (accepted: %s)", a, strings.Join(elle.Anomalies, ", "))
		}
		return nil
	})
}

// ParseAssumptions checks a comma list of assumptions about the store
// (see elle.Assumptions), and drops repeats and empty names.
func ParseAssumptions(list string) ([]string, error) {
	return parseNames(list, func(a string) error {
		_, err := elle.ParseAssumptions([]string{a}, elle.Options{})
		return err
	})
}

// parseNames splits a comma list, checking each name once.
func parseNames(list string, check func(string) error) ([]string, error) {
	var out []string
	for _, a := range strings.Split(list, ",") {
		a = strings.TrimSpace(a)
		if a == "" || slices.Contains(out, a) {
			continue
		}
		if err := check(a); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// supported checks that m implements every criterion asked for.
func supported(m suite.Model, criteria []string) error {
	for _, c := range criteria {
		if c == elle.AnomaliesCriterion && !m.Anomalies {
			return fmt.Errorf("model %s has no anomalies to ask for: --anomalies applies to the transactional models (list-append, rw-register)", m.Info.Name)
		}
		if c != All && !m.Supports(c) {
			return &suite.UnsupportedError{Model: m.Info.Name, Criterion: c, Supported: m.Criteria}
		}
	}
	return nil
}

// expand replaces All by every criterion m supports, strongest first.
func expand(m suite.Model, criteria []string) (out []string, all bool) {
	for _, c := range criteria {
		if c == All {
			all = true
			for _, mc := range m.Criteria {
				if !slices.Contains(out, mc) {
					out = append(out, mc)
				}
			}
			continue
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, all
}

// CheckModels checks a --model setting before any history is read: that
// it parses, names known models, and that each supports the criteria.
func CheckModels(spec string, ms []suite.Model, criteria []string) error {
	sp, err := ParseModels(spec)
	if err != nil {
		return err
	}
	models, err := sp.lookupAll(ms)
	if err != nil {
		return err
	}
	for _, name := range sp.names() {
		if err := supported(models[name], criteria); err != nil {
			return err
		}
	}
	return nil
}
