package history

// Touching reports what RealTime().Touching does, that some client's
// operation returns at the instant one it called later is called, without
// placing every end in real time: for each client, the returns of its
// operations so far are kept in a heap, and those before the current call
// are dropped, since calls only move forward.
func (h *History) Touching() bool {
	for i := 1; i < len(h.Ops); i++ {
		if h.Ops[i].Call < h.Ops[i-1].Call {
			return h.RealTime().Touching // not in call order: place every end
		}
	}
	// Sized by the clients counted when h was made: a core's checks each
	// ask this of a small history, and maps grown step by step cost them
	// fresh pages.
	n := max(h.Clients, 0)
	ids := make(map[string]int, n)
	pending := make([]instants, 0, n) // by client, in order of appearance
	for i := range h.Ops {
		o := &h.Ops[i]
		c, ok := ids[o.Client]
		if !ok {
			c = len(pending)
			ids[o.Client] = c
			pending = append(pending, nil)
		}
		rs := &pending[c]
		for len(*rs) > 0 && (*rs)[0] < o.Call {
			rs.pop()
		}
		if len(*rs) > 0 && (*rs)[0] == o.Call {
			return true
		}
		if o.Return != Infinity {
			rs.push(o.Return)
		}
	}
	return false
}

// instants is a min-heap of instants.
type instants []int64

func (q *instants) push(t int64) {
	*q = append(*q, t)
	s := *q
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
}

func (q *instants) pop() {
	s := *q
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		least := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < n && s[c] < s[least] {
				least = c
			}
		}
		if least == i {
			break
		}
		s[i], s[least] = s[least], s[i]
		i = least
	}
	*q = s
}
