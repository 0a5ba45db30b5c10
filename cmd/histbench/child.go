package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/internal/hugepages"
)

// Large workloads run in a child process of their own, one tool per child,
// so that the peak resident memory the kernel reports for the child
// (rusage maxrss) is that tool's, plus the generated history both share.

// childResult is what a child prints: the check time (generation excluded)
// and the outcome.
type childResult struct {
	Seconds float64 `json:"seconds"`
	// ReadSeconds is the time to read the history file (transactional
	// rows only).
	ReadSeconds float64 `json:"read_seconds,omitempty"`
	// CPUSeconds and ReadCPUSeconds are the processor time (user and
	// system, every thread) the check and the read took (transactional
	// rows only): unlike the times, they hardly change when other work
	// shares the machine.
	CPUSeconds     float64 `json:"cpu_seconds,omitempty"`
	ReadCPUSeconds float64 `json:"read_cpu_seconds,omitempty"`
	Verdict        string  `json:"verdict"`
	Reason         string  `json:"reason,omitempty"`
	Method         string  `json:"method,omitempty"`
	Ops            int     `json:"ops"`
	Error          string  `json:"error,omitempty"`
	// Set by the parent.
	PeakRSS int64  `json:"-"` // bytes
	Crashed string `json:"-"`
}

// childMain runs "histbench child SPEC TOOL TIMEOUT MAXMEM": TOOL is
// histcheck, porcupine or none (generation only, the baseline memory).
// SPEC txnfile=PATH reads and checks a transactional history file;
// readfile=PATH only reads a history file; writebench=DIR writes the
// files of the EDN row; writebigtxn=DIR writes those of the transactional
// process rows; writetxn=N:DIR writes the transactional file of
// N transactions; porcupinefile=CONV:PATH reads a history file and checks
// it with Porcupine (see porcupineFileChild).
func childMain(args []string, stdout io.Writer) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: histbench child SPEC histcheck|porcupine|none TIMEOUT MAXMEM")
		return 3
	}
	spec, tool := args[0], args[1]
	timeout, err1 := time.ParseDuration(args[2])
	maxMem, err2 := strconv.ParseInt(args[3], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "histbench child: bad TIMEOUT or MAXMEM")
		return 3
	}
	if tool == "porcupine" && maxMem > 0 {
		// Porcupine has no memory bound of its own: cap its address space
		// so that it fails alone rather than take the machine's memory.
		lim := &syscall.Rlimit{Cur: uint64(maxMem), Max: uint64(maxMem)}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, lim); err != nil {
			fmt.Fprintln(os.Stderr, "histbench child: setrlimit:", err)
		}
	}
	if tool == "histcheck" {
		// As the command does: the heap asks for huge pages.
		defer hugepages.Start()()
	}
	if path, ok := strings.CutPrefix(spec, "txnfile="); ok {
		return emit(stdout, txnChild(path))
	}
	if path, ok := strings.CutPrefix(spec, "readfile="); ok {
		return emit(stdout, readChild(path))
	}
	if dir, ok := strings.CutPrefix(spec, "writebench="); ok {
		return emit(stdout, writeBenchFiles(dir))
	}
	if dir, ok := strings.CutPrefix(spec, "writebigtxn="); ok {
		return emit(stdout, writeBigTxnChild(dir))
	}
	if arg, ok := strings.CutPrefix(spec, "writeiso="); ok {
		return emit(stdout, writeIsoChild(arg))
	}
	if arg, ok := strings.CutPrefix(spec, "isofile="); ok {
		return emit(stdout, isoChild(arg))
	}
	if arg, ok := strings.CutPrefix(spec, "writetxn="); ok {
		return emit(stdout, writeTxnChild(arg))
	}
	if arg, ok := strings.CutPrefix(spec, "porcupinefile="); ok {
		return emit(stdout, porcupineFileChild(arg, timeout))
	}
	w, err := generate(spec)
	var res childResult
	if err != nil {
		res.Error = err.Error()
		return emit(stdout, res)
	}
	res.Ops = len(w.h.Ops)
	start := time.Now()
	switch tool {
	case "histcheck":
		ctx := context.Background()
		if timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		r, err := w.histcheck(ctx, linear.Options{MaxMemory: maxMem})
		if err != nil {
			res.Error = err.Error()
		}
		res.Verdict, res.Reason, res.Method = r.Valid.String(), r.Reason, r.Method
	case "porcupine":
		res.Verdict = w.porcupine(timeout).String()
		if res.Verdict == checker.Unknown.String() {
			res.Reason = "timed out after " + timeout.String()
		}
	case "none":
		res.Verdict = "-"
	default:
		res.Error = "unknown tool " + tool
	}
	res.Seconds = time.Since(start).Seconds()
	return emit(stdout, res)
}

func emit(w io.Writer, r childResult) int {
	b, _ := json.Marshal(r)
	fmt.Fprintln(w, string(b))
	if r.Error != "" {
		return 1
	}
	return 0
}

// runChild runs one workload with one tool in a child process.
func runChild(spec, tool string, timeout time.Duration, maxMem int64) childResult {
	self, err := os.Executable()
	if err != nil {
		return childResult{Error: err.Error()}
	}
	cmd := exec.Command(self, "child", spec, tool, timeout.String(), strconv.FormatInt(maxMem, 10))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var res childResult
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		res = childResult{Verdict: "-", Crashed: fmt.Sprintf("no result (%v)", err)}
		if ee, ok := err.(*exec.ExitError); ok {
			res.Crashed = "died: " + ee.String()
		}
	}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.PeakRSS = ru.Maxrss << 10
		}
	}
	return res
}
