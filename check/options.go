package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// ParseModelOptions reads model options written NAME=VALUE (the
// command line's --model-option, Request.ModelOptions), each item
// possibly a comma list of them. A name given twice keeps its last value.
func ParseModelOptions(items []string) (map[string]string, error) {
	var out map[string]string
	for _, item := range items {
		for _, kv := range strings.Split(item, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			name, value, ok := strings.Cut(kv, "=")
			name = strings.TrimSpace(name)
			if !ok || name == "" {
				return nil, fmt.Errorf("model option %s: want NAME=VALUE", history.Quote(kv))
			}
			if out == nil {
				out = map[string]string{}
			}
			out[name] = strings.TrimSpace(value)
		}
	}
	return out, nil
}

// checkModelOptions checks that every model option given is one that
// each object's model takes.
func checkModelOptions(objs []object, settings map[string]string) error {
	for _, obj := range objs {
		for name := range settings {
			if slices.Contains(obj.model.Options, name) {
				continue
			}
			if len(obj.model.Options) == 0 {
				return fmt.Errorf("model %s takes no options (given %s)", obj.model.Info.Name, history.Quote(name))
			}
			return fmt.Errorf("model %s has no option %s (accepted: %s)", obj.model.Info.Name, history.Quote(name),
				strings.Join(obj.model.Options, ", "))
		}
	}
	return nil
}
