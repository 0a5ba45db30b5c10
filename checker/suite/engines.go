package suite

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The witness check of Options.Verify is done once, by Bind, so that a
// failure is a WitnessError whatever the engine.

func linearizable[S comparable](ctx context.Context, m model.Model[S], h *history.History, opts Options) (checker.Result, error) {
	return linear.Check(ctx, m, h, linear.Options{Workers: opts.Workers, MaxMemory: opts.MaxMemory, Memory: opts.Memory})
}

func sequentialCheck[S comparable](ctx context.Context, m model.Model[S], h *history.History, opts Options) (checker.Result, error) {
	return sequential.Check(ctx, m, h, sequential.Options{Workers: opts.Workers, MaxMemory: opts.MaxMemory, Memory: opts.Memory})
}

func causalCheck(ctx context.Context, m model.Info, h *history.History, criterion string, init history.Value, opts Options) (checker.Result, error) {
	return causal.Check(ctx, h, criterion, causal.Options{Init: init, MaxViolations: opts.MaxViolations, Model: m})
}

func sessionCheck(ctx context.Context, m model.Info, h *history.History, criterion string, init history.Value, opts Options) (checker.Result, error) {
	return session.Check(ctx, h, criterion, session.Options{Init: init, MaxViolations: opts.MaxViolations, Model: m})
}

// weakCheck decides one of the causal criteria or session guarantees.
func weakCheck(ctx context.Context, m model.Info, h *history.History, criterion string, init history.Value, opts Options) (checker.Result, error) {
	switch criterion {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		return causalCheck(ctx, m, h, criterion, init, opts)
	}
	return sessionCheck(ctx, m, h, criterion, init, opts)
}

// verifyReadsFrom checks a weak criterion's witness, the write each read of
// a repeated value read, without searching: the history relabelled by it
// (causal.Relabel) must satisfy the criterion.
func verifyReadsFrom(ctx context.Context, m model.Info, h *history.History, criterion string, init history.Value, res checker.Result, opts Options) error {
	r := causal.Relabel(h, m, init, res.ReadsFrom, res.Dropped)
	again, err := weakCheck(ctx, m, r, criterion, init, opts)
	if err != nil {
		return err
	}
	if again.Valid != checker.True || len(again.ReadsFrom) > 0 {
		return fmt.Errorf("the history with the reads-from given is %s, not true: %s", again.Valid, again.Reason)
	}
	return nil
}

// ErrReadWriteOnly is wrapped by the error the causal and session criteria
// give for an operation other than a read, a write or a cas (an append).
var ErrReadWriteOnly = causal.ErrUnsupportedOp
