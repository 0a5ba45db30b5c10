package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/porcupinemodel"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/sim"
)

// workload is one history prepared for both checkers: histcheck's model and
// Porcupine's conversion of the same parsed history.
type workload struct {
	name   string
	file   string // source file, for corpus histories
	h      *history.History
	m      model.Model[int64]
	pModel porcupine.Model
	pOps   []porcupine.Operation
	want   checker.Verdict // Unknown: not known in advance
}

// histcheck checks the workload with histcheck's engine.
func (w *workload) histcheck(ctx context.Context, opts linear.Options) (checker.Result, error) {
	return linear.Check(ctx, w.m, w.h, opts)
}

// porcupineVerdict checks the workload with Porcupine.
func (w *workload) porcupine(timeout time.Duration) checker.Verdict {
	var r porcupine.CheckResult
	if timeout > 0 {
		r = porcupine.CheckOperationsTimeout(w.pModel, w.pOps, timeout)
	} else if porcupine.CheckOperations(w.pModel, w.pOps) {
		r = porcupine.Ok
	} else {
		r = porcupine.Illegal
	}
	switch r {
	case porcupine.Ok:
		return checker.True
	case porcupine.Illegal:
		return checker.False
	}
	return checker.Unknown
}

// findCorpus looks for shared/corpus beside the module's root, from the
// working directory up.
func findCorpus() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "..", "shared", "corpus")
			if _, err := os.Stat(c); err != nil {
				return "", fmt.Errorf("no corpus beside the module at %s: %w", d, err)
			}
			return filepath.Clean(c), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above the working directory; give -corpus")
		}
	}
}

// moduleRoot returns the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above the working directory")
		}
	}
}

// expectedRow is one line of a corpus folder's EXPECTED.tsv.
type expectedRow struct {
	file, model, init, want string
}

func readExpected(dir string) ([]expectedRow, error) {
	f, err := os.Open(filepath.Join(dir, "EXPECTED.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []expectedRow
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		cols := strings.Split(sc.Text(), "\t")
		if first || len(cols) < 5 {
			continue
		}
		rows = append(rows, expectedRow{file: cols[0], model: cols[1], init: cols[2], want: cols[4]})
	}
	return rows, sc.Err()
}

// loadCorpus parses the histories of one corpus folder (those named in
// only, without extension, when only is not nil).
func loadCorpus(corpus, dir string, only map[string]bool) ([]*workload, error) {
	rows, err := readExpected(filepath.Join(corpus, dir))
	if err != nil {
		return nil, err
	}
	var out []*workload
	for _, row := range rows {
		base := strings.TrimSuffix(row.file, filepath.Ext(row.file))
		if only != nil && !only[base] {
			continue
		}
		path := filepath.Join(corpus, dir, row.file)
		h, err := format.ReadFile(path, "")
		if err != nil {
			return nil, err
		}
		w := &workload{name: base, file: path, h: h,
			want: map[string]checker.Verdict{"valid": checker.True, "invalid": checker.False}[row.want]}
		switch row.model {
		case "kv":
			w.m = model.NewKV(model.Options{Init: history.StringValue("")})
			w.pModel, w.pOps = porcupinemodel.KV(h)
		case "cas-register":
			w.m = model.NewCASRegister(model.Options{Init: history.NilValue})
			w.pModel, w.pOps = porcupinemodel.Register(h, history.NilValue)
		default:
			return nil, fmt.Errorf("%s: model %s is not benchmarked", path, row.model)
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no histories in %s", filepath.Join(corpus, dir))
	}
	return out, nil
}

// spec describes a generated workload as "model/key=value/...", for
// example "kv/ops=100000/keys=1000/clients=32/crash=0.01/anomaly=none",
// "register/ops=1000000/clients=64/unique/anomaly=none", "hard/writers=60"
// or "writes/ops=30000/overlap=30000/initwrite".
func generate(spec string) (*workload, error) {
	parts := strings.Split(spec, "/")
	o := sim.RandomOptions{Model: parts[0], Clients: 1, Seed: 1}
	writers := 60
	overlap, initWrite := 0, false
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		var err error
		switch k {
		case "ops":
			o.Ops, err = strconv.Atoi(v)
		case "keys":
			o.Keys, err = strconv.Atoi(v)
		case "clients":
			o.Clients, err = strconv.Atoi(v)
		case "crash":
			o.CrashRate, err = strconv.ParseFloat(v, 64)
		case "unique":
			o.UniqueValues = true
		case "anomaly":
			o.Anomaly = v
		case "seed":
			var s uint64
			s, err = strconv.ParseUint(v, 10, 32)
			o.Seed = uint32(s)
		case "writers":
			writers, err = strconv.Atoi(v)
		case "overlap":
			overlap, err = strconv.Atoi(v)
		case "initwrite":
			initWrite = true
		default:
			err = errors.New("unknown setting")
		}
		if err != nil {
			return nil, fmt.Errorf("workload %q: %s: %w", spec, p, err)
		}
	}
	init := history.IntValue(0)
	w := &workload{name: spec}
	var err error
	switch o.Model {
	case "hard":
		w.h, err = hardHistory(writers)
		w.m = model.NewCASRegister(model.Options{Init: init})
		w.want = checker.False
	case "writes":
		w.h, err = writesHistory(o.Ops, overlap, initWrite)
		w.m = model.NewRegister(model.Options{Init: init})
		w.want = checker.True
	default:
		w.h, err = sim.Random(o)
		switch o.Model {
		case "kv":
			w.m = model.NewKV(model.Options{Init: init})
		case "register":
			w.m = model.NewRegister(model.Options{Init: init})
		default:
			w.m = model.NewCASRegister(model.Options{Init: init})
		}
		w.want = checker.True
		if o.Anomaly != "" && o.Anomaly != "none" {
			w.want = checker.False
		}
	}
	if err != nil {
		return nil, err
	}
	w.pModel, w.pOps = porcupinemodel.Register(w.h, init)
	return w, nil
}

// writesHistory is a write-only register starting at 0: n writes of
// distinct values, each on a process of its own, the i-th called at time i
// and returning overlap later (0: all of them overlap). With initWrite the
// middle write writes the initial value again, which takes the history
// away from the unique-values algorithm.
func writesHistory(n, overlap int, initWrite bool) (*history.History, error) {
	if overlap <= 0 {
		overlap = n
	}
	ops := make([]history.Op, n)
	for i := range ops {
		v := int64(i + 1)
		if initWrite && i == n/2 {
			v = 0
		}
		ops[i] = history.Op{Client: fmt.Sprintf("w%d", i), F: "write", Value: history.IntValue(v),
			Call: int64(i), Return: int64(i + overlap), Status: history.OK}
	}
	return history.FromOps(ops)
}

// hardHistory is a history beyond any budget: writers concurrent writes of
// distinct values and a concurrent compare-and-set (so no polynomial
// shortcut applies), then a read of a value nobody wrote. Every subset of
// the writes, in every order that matters, must be tried before the search
// can say no.
func hardHistory(writers int) (*history.History, error) {
	var ops []history.Op
	for i := 0; i < writers; i++ {
		ops = append(ops, history.Op{Client: fmt.Sprintf("w%d", i), F: "write", Value: history.IntValue(int64(i + 1)),
			Call: 0, Return: 100, Status: history.OK})
	}
	ops = append(ops,
		history.Op{Client: "c", F: "cas", Value: history.ListValue(history.IntValue(1), history.IntValue(2)), Call: 0, Return: 100, Status: history.OK},
		history.Op{Client: "r", F: "read", Value: history.IntValue(-1), Call: 101, Return: 102, Status: history.OK})
	return history.FromOps(ops)
}
