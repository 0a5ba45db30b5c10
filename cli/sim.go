package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// simOptions are the flags every "histcheck sim" scenario takes.
type simOptions struct {
	emit   string
	output string
	to     string
}

// simAliases are extra names for scenario flags: the name on the command
// line, then the scenario's own.
var simAliases = map[string]map[string]string{
	"random": {"unique-values": "unique"},
	"txn":    {"sessions": "clients"},
}

func newSimCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sim NAME [flags]",
		Short: "Run a seed scenario: print its table or emit its history",
		Long: "Run one of the scenarios histcheck is built around and print its table (--emit table, the\n" +
			"default) or write the history it stands for (--emit history), ready for \"histcheck check\".\n" +
			"Each scenario is deterministic for its seed; the defaults give the chapters' figures. Every table\n" +
			"ends with what it shows and the exact command that emits its history and checks it: the history\n" +
			"carries its models per key, initial value, lease length and time unit, so check needs no flags.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("sim needs a scenario NAME (one of: %s)", strings.Join(scenarioNames(), ", "))
			}
			return usagef("unknown scenario %q (one of: %s)", args[0], strings.Join(scenarioNames(), ", "))
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	for _, s := range sim.ScenariosWith(emittedVerdict(e.models)) {
		cmd.AddCommand(newScenarioCmd(e, s))
	}
	cmd.AddCommand(newLiveCmd(e))
	return cmd
}

func scenarioNames() []string {
	var out []string
	for _, s := range sim.Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

func newScenarioCmd(e *env, s sim.Scenario) *cobra.Command {
	o := &simOptions{}
	values := make(map[string]*string, len(s.Flags))
	cmd := &cobra.Command{
		Use:   s.Name + " [flags]",
		Short: s.Description,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p := sim.Params{}
			for name, v := range values {
				if !cmd.Flags().Changed(name) {
					continue
				}
				own := name
				if a, ok := simAliases[s.Name][name]; ok {
					own = a
					if cmd.Flags().Changed(a) {
						return usagef("--%s and --%s are the same setting; give one", name, a)
					}
				}
				p[own] = *v
			}
			return runSim(e, o, s, p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.emit, "emit", "table", "what to print: table (the scenario's figures) or history (the history it stands for)")
	f.StringVarP(&o.output, "output", "o", "", "write to this file instead of standard output")
	f.StringVar(&o.to, "to", format.JSON, "history format with --emit history: json (keeps the settings: model, init, time_unit, ttl), jsonl, edn, "+
		"or for rw-register transactions with no crashes one of the research checkers' ("+strings.Join(transactionFormats(), ", ")+")")
	for _, fl := range s.Flags {
		values[fl.Name] = f.String(fl.Name, fl.Default, fl.Usage)
	}
	aliases := simAliases[s.Name]
	names := make([]string, 0, len(aliases))
	for a := range aliases {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		own := aliases[a]
		for _, fl := range s.Flags {
			if fl.Name == own {
				values[a] = f.String(a, fl.Default, "same as --"+own)
			}
		}
	}
	return cmd
}

func runSim(e *env, o *simOptions, s sim.Scenario, p sim.Params) error {
	switch o.emit {
	case "table", "history":
	default:
		return usagef("unknown --emit %q (accepted: table, history)", o.emit)
	}
	if !contains(outputFormats, o.to) {
		return usagef("unknown history format %q (accepted: %s)", o.to, strings.Join(outputFormats, ", "))
	}
	out, err := s.Run(p)
	if err != nil {
		return usagef("sim %s: %v", s.Name, err)
	}
	if o.emit == "history" && out.History == nil {
		return usagef("scenario %s has a table only, no history; use --emit table", s.Name)
	}
	return writeOutput(e, o.output, func(w io.Writer) error {
		if o.emit == "table" {
			_, err := io.WriteString(w, out.Table)
			return err
		}
		h := emitted(out)
		if o.to == format.JSONL && len(h.Meta) > 0 {
			fmt.Fprintf(e.stderr, "histcheck sim: JSON Lines does not carry the history's settings (%s); give them to check as flags, or emit json\n",
				describeMeta(h.Meta))
		}
		return format.Write(w, h, o.to)
	})
}

// transactionFormats are the writable formats that hold read/write
// transactions only.
func transactionFormats() []string {
	var out []string
	for _, f := range format.All() {
		if f.Transactions && f.Write != nil {
			out = append(out, f.Name)
		}
	}
	return out
}

// emittedVerdict is the checker the lock design review fills its matrix
// with, and the eventual scenario its ladder: the verdict "histcheck check
// -c CRITERION FILE" gives a history with the settings it carries (its
// models per key, initial value, TTL), no other flags given.
func emittedVerdict(models []suite.Model) sim.Checker {
	return func(h *history.History, criterion string) (string, error) {
		out, err := check.Run(context.Background(), h, check.Request{Criteria: []string{criterion}, Models: models, NoCore: true})
		if err != nil {
			return "", err
		}
		var vs []checker.Verdict
		for _, r := range out.Results {
			vs = append(vs, r.Valid)
		}
		return check.Combine(vs...).String(), nil
	}
}

// emitted is the scenario's history with the settings it should be checked
// with written into its Meta, so that "histcheck check" reads them back.
func emitted(out *sim.Output) *history.History {
	h := *out.History
	meta := make(map[string]history.Value, len(h.Meta)+3)
	maps.Copy(meta, h.Meta)
	setDefault := func(k string, v history.Value) {
		if meta[k].IsNone() && !v.IsNone() {
			meta[k] = v
		}
	}
	if out.Model != "" {
		setDefault("model", history.StringValue(out.Model))
	}
	setDefault("init", out.Options.Init)
	if out.Options.TTL > 0 {
		setDefault("ttl", history.IntValue(out.Options.TTL))
	}
	h.Meta = meta
	return &h
}

func describeMeta(m map[string]history.Value) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + m[k].String()
	}
	return strings.Join(parts, ", ")
}

// writeOutput runs write on standard output, or on the named file.
func writeOutput(e *env, path string, write func(io.Writer) error) error {
	w := e.stdout
	var fh *os.File
	if path != "" && path != "-" {
		var err error
		if fh, err = os.Create(path); err != nil {
			return fmt.Errorf("cannot create output: %w", err)
		}
		w = fh
	}
	bw := bufio.NewWriter(w)
	err := write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if fh != nil {
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
