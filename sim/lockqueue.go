package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// LockQueueSeed is the lock-queue scenario's seed in the chapter.
const LockQueueSeed = 43

// LockQueueClients and lockQueueExpired are the chapter's setting: five
// clients, and the node at queue position 2 loses its session.
const (
	LockQueueClients = 5
	lockQueueExpired = 2
)

// QueueEvent is one deletion of a node of the lock queue and the
// notifications it causes.
type QueueEvent struct {
	Node   int    // sequence number of the deleted node
	Client string // its owner
	// Expired is set when the node went because its session expired while
	// waiting; otherwise its owner held the lock and released it.
	Expired bool
	Recipe  int // notifications with the recipe: the next node only
	Naive   int // notifications when everyone watches the folder
	// Holder is the client that holds the lock after the deletion, or "".
	Holder string
}

// LockQueueResult is the outcome of the lock-queue scenario.
type LockQueueResult struct {
	Arrival       []string // clients in arrival order; client i owns node i
	Events        []QueueEvent
	Recipe, Naive int // notifications in all
	// Service is "zookeeper" (ephemeral-sequential nodes, sequence numbers
	// as tokens) or "etcd" (keys under a lease, create_revision as tokens).
	Service string
}

// etcdFirstRevision is the store's revision before the first client joins;
// between two joins the rest of the store is written etcdRevisionGap − 1
// times, so revisions grow by more than one.
const (
	etcdFirstRevision = 1000
	etcdRevisionGap   = 3
)

// Token is the fencing token of node i: its sequence number with
// ZooKeeper, its key's create_revision with etcd.
func (r LockQueueResult) Token(i int) int64 {
	if r.Service == "etcd" {
		return etcdFirstRevision + 1 + int64(etcdRevisionGap*i)
	}
	return int64(i)
}

// name is how the table names node i.
func (r LockQueueResult) name(i int) string {
	if r.Service == "etcd" {
		return fmt.Sprintf("/lock/%s (create_revision %d)", r.Arrival[i], r.Token(i))
	}
	return nodeName(i)
}

// LockQueue runs the chapter's five clients (see LockQueueN).
func LockQueue(seed uint32) LockQueueResult { return LockQueueN(seed, LockQueueClients) }

// LockQueueN shuffles the arrival of n clients with Fisher–Yates, queues
// them as ephemeral-sequential nodes, lets the waiter at position 2 expire
// (when there is one), then releases the head until the queue is empty,
// counting notifications.
func LockQueueN(seed uint32, n int) LockQueueResult {
	g := NewMulberry32(seed)
	arrival := make([]string, n)
	for i := range arrival {
		arrival[i] = fmt.Sprintf("C%d", i+1)
	}
	for i := len(arrival) - 1; i >= 1; i-- {
		j := g.Intn(i + 1)
		arrival[i], arrival[j] = arrival[j], arrival[i]
	}
	res := LockQueueResult{Arrival: arrival, Service: "zookeeper"}
	queue := make([]int, len(arrival)) // node sequence numbers, lowest first
	for i := range queue {
		queue[i] = i
	}
	remove := func(pos int, expired bool) {
		node := queue[pos]
		queue = append(queue[:pos], queue[pos+1:]...)
		e := QueueEvent{Node: node, Client: arrival[node], Expired: expired, Naive: len(queue)}
		if pos < len(queue) {
			e.Recipe = 1
		}
		if len(queue) > 0 {
			e.Holder = arrival[queue[0]]
		}
		res.Recipe += e.Recipe
		res.Naive += e.Naive
		res.Events = append(res.Events, e)
	}
	if lockQueueExpired < len(queue) {
		remove(lockQueueExpired, true)
	}
	for len(queue) > 0 {
		remove(0, false)
	}
	return res
}

// HerdNotifications returns how many notifications n clients cost when each
// takes the lock once and nobody crashes: n−1 with the recipe, where each
// deletion wakes only the next node, and n(n−1)/2 when every deletion wakes
// every remaining node.
func HerdNotifications(n int64) (recipe, naive int64) {
	if n < 1 {
		return 0, 0
	}
	return n - 1, n * (n - 1) / 2
}

func nodeName(seq int) string { return fmt.Sprintf("lock-%010d", seq) }

// Table renders the queue, each deletion's notifications, and how the two
// designs scale.
func (r LockQueueResult) Table() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Arrival order: %s.\n\n", strings.Join(r.Arrival, ", "))
	var nodes [][]string
	for i, c := range r.Arrival {
		nodes = append(nodes, []string{r.name(i), c})
	}
	head := "node"
	if r.Service == "etcd" {
		head = "key"
	}
	sb.WriteString(mdTable([]string{head, "client"}, nodes))
	sb.WriteByte('\n')
	var rows [][]string
	for _, e := range r.Events {
		what := fmt.Sprintf("%s releases %s", e.Client, r.name(e.Node))
		switch {
		case e.Expired && r.Service == "etcd":
			what = fmt.Sprintf("%s's lease expires, %s deleted", e.Client, r.name(e.Node))
		case e.Expired:
			what = fmt.Sprintf("%s's session expires, %s deleted", e.Client, nodeName(e.Node))
		}
		holder := e.Holder
		if holder == "" {
			holder = "none"
		}
		rows = append(rows, []string{what, holder, fmt.Sprint(e.Recipe), fmt.Sprint(e.Naive)})
	}
	rows = append(rows, []string{"total", "", fmt.Sprint(r.Recipe), fmt.Sprint(r.Naive)})
	sb.WriteString(mdTable([]string{"event", "holder after", "recipe notifications", "naive notifications"}, rows))
	sb.WriteByte('\n')
	var scale [][]string
	sizes := []int64{5, 100, 1000}
	if n := int64(len(r.Arrival)); n != 5 && n != 100 && n != 1000 {
		sizes = append([]int64{n}, sizes...)
	}
	for _, n := range sizes {
		rec, naive := HerdNotifications(n)
		scale = append(scale, []string{thousands(n), thousands(rec), thousands(naive)})
	}
	sb.WriteString("Without a crash:\n\n")
	sb.WriteString(mdTable([]string{"clients", "recipe (n−1)", "naive (n(n−1)/2)"}, scale))
	return sb.String()
}

// LockQueueModel is how the lock-queue history is checked: the lock model,
// which knows each holder and requires the fencing tokens to grow.
const LockQueueModel = "lock"

// History returns the run as a lock history on key "lock", times in ms:
// client i of the arrival order joins at 10i and invokes acquire, which
// completes when its node becomes the lowest, returning the node's sequence
// number as value and fencing token; the expired client's acquire never
// completes (info). Deletions happen 10 ms apart after everyone joined; a
// release spans [t, t+1] and the next holder's acquire returns at t+2.
func (r LockQueueResult) History() (*history.History, error) {
	key := history.StringValue("lock")
	n := len(r.Arrival)
	acquire := make([]history.Op, n)
	for i, c := range r.Arrival {
		tok := history.IntValue(r.Token(i))
		acquire[i] = history.Op{Client: c, F: "acquire", Key: key, Value: tok, Token: tok, Call: int64(10 * i), Status: history.Info}
	}
	// The first node is the lowest as soon as it exists.
	acquire[0].Return, acquire[0].Status = 1, history.OK
	var ops []history.Op
	t := int64(10 * n)
	for _, e := range r.Events {
		if !e.Expired {
			tok := history.IntValue(r.Token(e.Node))
			ops = append(ops, history.Op{Client: e.Client, F: "release", Key: key, Token: tok, Call: t, Return: t + 1, Status: history.OK})
		}
		if e.Holder != "" {
			for i, c := range r.Arrival {
				if c == e.Holder && acquire[i].Status == history.Info {
					acquire[i].Return, acquire[i].Status = t+2, history.OK
				}
			}
		}
		t += 10
	}
	return build("lock queue", append(acquire, ops...), metaFor(LockQueueModel, history.Value{}))
}

func lockQueueScenario() Scenario {
	flags := []Flag{{Name: "seed", Default: fmt.Sprint(LockQueueSeed), Usage: "generator seed for the arrival order"},
		{Name: "clients", Default: fmt.Sprint(LockQueueClients), Usage: "clients joining the queue (1 to 1000)"},
		{Name: "service", Default: "zookeeper", Usage: "zookeeper (ephemeral-sequential nodes) or etcd (keys under a lease; create_revision as the token)"}}
	return Scenario{
		Name:        "lockqueue",
		Description: "ZooKeeper lock queue: the herd effect, recipe versus naive notifications, fencing tokens",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			n, err := parseInt("clients", v["clients"], 1, 1000)
			if err != nil {
				return nil, err
			}
			service, err := parseChoice("service", v["service"], "zookeeper", "etcd")
			if err != nil {
				return nil, err
			}
			res := LockQueueN(seed, n)
			res.Service = service
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			shows := "Each deletion wakes only the next node with the recipe, every waiter with the naive design; the queue order is the arrival order. " +
				"Checked with the lock model, the history passes: one holder at a time, each release by the holder, and the fencing tokens " +
				"(the nodes' sequence numbers) grow with each new holder; the expired waiter's acquire is left out."
			if service == "etcd" {
				shows = "etcd's lock is the same recipe with a lease in place of the ephemeral node and each key's create_revision in place of the sequence number; " +
					"each waiter watches the key just before its own, so the notifications are the recipe's. " +
					"The revision grows across the whole store, so the next holder's is always larger: checked with the lock model, the revisions serve as fencing tokens and the history passes."
			}
			return &Output{Table: closing(res.Table(), shows, "lockqueue", flags, v, "true"), History: h, Model: LockQueueModel,
				Options: model.Options{}, Expect: "true"}, nil
		},
	}
}
