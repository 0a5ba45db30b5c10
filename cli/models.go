package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newModelsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the models, their operations and the criteria each supports",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for i, m := range e.models {
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				keyed := ""
				if m.Info.Keyed {
					keyed = " (keyed: each key is checked on its own)"
				}
				fmt.Fprintf(e.stdout, "%s%s\n  %s\n", m.Info.Name, keyed, m.Info.Doc)
				tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				for _, op := range m.Info.Ops {
					fmt.Fprintf(tw, "  %s\t%s\t%s\n", strings.Join(op.Names, ", "), op.Value, op.Doc)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "  criteria: %s\n", strings.Join(m.Criteria, ", "))
			}
			return nil
		},
	}
}
