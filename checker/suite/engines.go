package suite

import (
	"context"

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

// ErrReadWriteOnly is wrapped by the error the causal and session criteria
// give for an operation other than a read, a write or a cas (an append).
var ErrReadWriteOnly = causal.ErrUnsupportedOp
