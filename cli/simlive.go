package cli

import (
	"bufio"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// newLiveCmd is "histcheck sim live": a key-value workload whose history
// is written as it runs, for "histcheck check --follow".
func newLiveCmd(e *env) *cobra.Command {
	var o sim.LiveOptions
	var emit, to, out string
	var seed uint
	cmd := &cobra.Command{
		Use:   "live [flags]",
		Short: "a key-value workload whose history is written as it runs (for check --follow)",
		Long: "Run a key-value workload against a single copy of the store and write its events as they happen,\n" +
			"one JSON line each, so that \"histcheck sim live ... | histcheck check --follow - -m kv --init 0\" checks\n" +
			"a run while it goes on. The history is linearizable unless --stale-read-at injects a stale read;\n" +
			"the time it is written is said on standard error.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if emit != "history" {
				return usagef("sim live writes its history as it runs: give --emit history")
			}
			if to != format.JSONL {
				return usagef("sim live writes JSON Lines only (--format jsonl)")
			}
			o.Seed = uint32(seed)
			return writeOutput(e, out, func(w io.Writer) error { return runLive(e, w, o) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&emit, "emit", "history", "what to write: history")
	f.StringVar(&to, "format", format.JSONL, "history format: jsonl")
	f.StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	f.Int64Var(&o.Ops, "ops", 1000, "operations in all")
	f.IntVar(&o.Clients, "clients", 32, "clients running at once")
	f.IntVar(&o.Keys, "keys", 1000, "keys")
	f.Float64Var(&o.Writes, "writes", 0.5, "share of writes among the operations")
	f.Float64Var(&o.CrashRate, "crash-rate", 0.01, "chance a write's outcome is unknown")
	f.Int64Var(&o.StaleAt, "stale-read-at", 0, "inject one stale read at or after this operation (0: none)")
	f.Float64Var(&o.Rate, "rate", 0, "operations invoked per second at most (0: as fast as it goes)")
	f.UintVar(&seed, "seed", 1, "generator seed")
	return cmd
}

// runLive writes the live workload's events to w as they happen: at its
// rate each event is flushed at once, else in blocks.
func runLive(e *env, w io.Writer, o sim.LiveOptions) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	err := sim.Live(o, func(ev sim.LiveEvent) error {
		line = format.AppendEventLine(line[:0], ev.Event)
		if _, err := bw.Write(line); err != nil {
			return err
		}
		if o.Rate > 0 || ev.Stale {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
		if ev.Stale {
			fmt.Fprintf(e.stderr, "histcheck sim: stale read written at %s (operation index %d, process %s)\n",
				time.Now().Format("15:04:05.000000"), ev.Event.Index, history.Escape(ev.Event.Process))
		}
		return nil
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}
