package suite

import (
	"context"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// JepsenModels binds Jepsen's own checkers (package jepsen), one model
// each, to their one criterion, jepsen.Criterion.
func JepsenModels() []Model {
	out := make([]Model, 0, len(jepsen.Names))
	for _, name := range jepsen.Names {
		out = append(out, jepsenModel(name))
	}
	return out
}

func jepsenModel(name string) Model {
	d := jepsenDocs[name]
	info := model.Info{Name: name, Doc: d.doc, Ops: d.ops}
	check := func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (checker.Result, error) {
		if criterion != jepsen.Criterion {
			return checker.Result{}, &UnsupportedError{Model: name, Criterion: criterion, Supported: []string{jepsen.Criterion}}
		}
		return jepsen.Check(ctx, name, h, mopts.Settings, opts.MaxViolations)
	}
	return Model{Info: info, Check: check, Criteria: []string{jepsen.Criterion}, Default: jepsen.Criterion,
		Options: jepsen.Accepted[name]}
}

type jepsenDoc struct {
	doc string
	ops []model.OpInfo
}

var (
	addOp  = model.OpInfo{Names: []string{"add"}, Value: "int (at least 0)", Doc: "adds to the counter"}
	readOp = model.OpInfo{Names: []string{"read"}, Value: "int (the value read)", Doc: "reads the counter", Class: model.ReadOp}
	elemOp = model.OpInfo{Names: []string{"add"}, Value: "element", Doc: "adds an element"}
	setOp  = model.OpInfo{Names: []string{"read"}, Value: "[element ...]", Doc: "reads every element", Class: model.ReadOp}
)

var jepsenDocs = map[string]jepsenDoc{
	jepsen.Counter: {"Jepsen's counter checker: a counter from 0 that only grows; each read must lie between the adds that " +
		"completed before it began and the adds begun before it ended (not the linearizable counter)", []model.OpInfo{addOp, readOp}},
	jepsen.Set: {"Jepsen's set checker: adds, then the final read judged: acknowledged elements it lacks are lost, elements " +
		"never added are unexpected (not the linearizable set)", []model.OpInfo{elemOp, setOp}},
	jepsen.SetFull: {"Jepsen's set-full checker: each element followed over every read: stable, lost, never read, stale, " +
		"duplicated, with latencies (option linearizable=true: stale elements fail too)", []model.OpInfo{elemOp, setOp}},
	jepsen.Bank: {"Jepsen's bank checker (as elle-cli runs it): every read keeps the total and, unless allowed, no negative " +
		"balance (options total-amount, negative-balances, max-transfer)", []model.OpInfo{
		{Names: []string{"read"}, Value: "{account balance ...}", Doc: "reads every balance", Class: model.ReadOp},
		{Names: []string{"transfer"}, Value: "{:from a :to b :amount n}", Doc: "moves money (not judged)"}}},
	jepsen.LongFork: {"Jepsen's long-fork checker: one write per key, reads of groups of keys; two reads of a group fork " +
		"when each saw a write the other did not (option group-size, default the first read's)", []model.OpInfo{
		{Names: []string{"txn", "read", "write"}, Value: "[[r k v] ...] or [[w k v]]", Doc: "a read of a group of keys, or one write"}}},
	jepsen.TotalQueue: {"Jepsen's total-queue checker: what goes in must come out; every acknowledged enqueue's element " +
		"dequeued (else lost), nothing dequeued that no enqueue attempted (else unexpected); duplicates and recovered " +
		"elements counted (not the linearizable queue)", []model.OpInfo{
		{Names: []string{"enqueue"}, Value: "element", Doc: "enqueues an element"},
		{Names: []string{"dequeue"}, Value: "element (the one dequeued)", Doc: "dequeues an element"},
		{Names: []string{"drain"}, Value: "[element ...] (those dequeued)", Doc: "dequeues every element"}}},
	jepsen.UniqueIDs: {"Jepsen's unique-ids checker: every generate that completed ok returned an identifier no other did",
		[]model.OpInfo{{Names: []string{"generate"}, Value: "identifier (the one returned)", Doc: "generates an identifier"}}},
}
