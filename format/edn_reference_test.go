package format

import "github.com/histcheck/histcheck/history"

// readEDNWhole is the reader of EDN before it streamed: it parses the whole
// input into a tree, then reads op maps: one vector or list of them, maps one after another,
// or a wrapper map with a :history entry.
func readEDNWhole(src []byte) (*history.History, error) {
	p := newEDNParser(src, 1)
	var forms []*ednNode
	for {
		end, err := p.atEnd()
		if err != nil {
			return nil, err
		}
		if end {
			break
		}
		f, err := p.form(0)
		if err != nil {
			return nil, err
		}
		forms = append(forms, f)
	}
	if len(forms) == 0 {
		return nil, history.Errorf(p.line, "no EDN forms; expected op maps")
	}
	meta := map[string]history.Value{}
	var ops []*ednNode
	switch {
	case len(forms) == 1 && (forms[0].kind == ednVector || forms[0].kind == ednList):
		ops = forms[0].items
	case len(forms) == 1 && forms[0].kind == ednMap && isWrapper(forms[0]):
		w := forms[0]
		var hist *ednNode
		for i := 0; i < len(w.items); i += 2 {
			k, ok := w.items[i].name()
			if ok && k == "history" {
				hist = w.items[i+1]
				continue
			}
			if !ok {
				return nil, history.Errorf(w.items[i].line, "wrapper keys must be keywords or strings, got %s", w.items[i].describe())
			}
			meta[k] = w.items[i+1].value()
		}
		if hist.kind != ednVector && hist.kind != ednList {
			return nil, history.Errorf(hist.line, "the :history entry must be a vector of op maps, got %s", hist.describe())
		}
		ops = hist.items
	default:
		for _, f := range forms {
			if f.kind != ednMap {
				return nil, history.Errorf(f.line, "expected an op map {:process … :type … :f …}, got %s", f.describe())
			}
		}
		ops = forms
	}
	events := make([]history.Event, 0, len(ops))
	for _, m := range ops {
		e, err := ednEvent(m)
		if err != nil {
			return nil, err
		}
		events = append(events, e)
	}
	h, err := history.Pair(events)
	if err != nil {
		return nil, err
	}
	if len(meta) > 0 {
		h.Meta = meta
	}
	return h, nil
}

func isWrapper(m *ednNode) bool {
	for i := 0; i < len(m.items); i += 2 {
		if k, _ := m.items[i].name(); k == "history" {
			return true
		}
	}
	return false
}
