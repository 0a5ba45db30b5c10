package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/format"
)

// convertOptions are the flags of "histcheck convert".
type convertOptions struct {
	to          string
	output      string
	format      string
	independent bool
}

// outputFormats are the forms convert writes.
var outputFormats = format.Writable()

func newConvertCmd(e *env) *cobra.Command {
	o := &convertOptions{}
	cmd := &cobra.Command{
		Use:   "convert --to " + strings.Join(outputFormats, "|") + " [flags] FILE",
		Short: "Rewrite a history in another format",
		Long: "Read a history FILE (- is standard input) in any format histcheck reads and write it\n" +
			"in another:\n\n" + writableList() + "\n" +
			"The research checkers' formats hold read/write transactions only (Jepsen rw-register\n" +
			"histories): a transaction of unknown outcome, an append or another operation is refused.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("convert needs exactly one FILE, got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runConvert(cmd.Context(), e, o, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.to, "to", "", "output format: "+strings.Join(outputFormats, ", "))
	f.StringVarP(&o.output, "output", "o", "", "write to this file instead of standard output")
	f.StringVar(&o.format, "format", "", "input format (default: detected from the file name and contents)")
	f.BoolVar(&o.independent, "independent", false, "read each value as a Jepsen [key value] tuple and write the key as a field")
	return cmd
}

// writableList lists the formats convert writes, one a line with its
// summary, from the format registry.
func writableList() string {
	var sb strings.Builder
	for _, f := range format.All() {
		if f.Write != nil {
			fmt.Fprintf(&sb, "  %-11s %s\n", f.Name, f.Summary)
		}
	}
	return sb.String()
}

func runConvert(ctx context.Context, e *env, o *convertOptions, file string) error {
	if !contains(outputFormats, o.to) {
		if o.to == "" {
			return usagef("convert needs --to (accepted: %s)", strings.Join(outputFormats, ", "))
		}
		return usagef("unknown output format %q (accepted: %s)", o.to, strings.Join(outputFormats, ", "))
	}
	if o.format != "" && !contains(formatNames(), o.format) {
		return usagef("unknown input format %q (accepted: %s)", o.format, strings.Join(formatNames(), ", "))
	}
	in, err := readHistory(ctx, e, file, format.Options{Format: o.format})
	if err != nil {
		printInputError(e, file, err)
		return &exitError{code: ExitError}
	}
	h := in.h
	if o.independent {
		if err := h.SplitTuples(); err != nil {
			printInputError(e, file, err)
			return &exitError{code: ExitError}
		}
	}
	w := e.stdout
	var fh *os.File
	if o.output != "" && o.output != "-" {
		fh, err = os.Create(o.output)
		if err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		w = fh
	}
	bw := bufio.NewWriter(w)
	err = format.Write(bw, h, o.to)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if fh != nil {
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("convert %s: %w", file, err)
	}
	return nil
}
