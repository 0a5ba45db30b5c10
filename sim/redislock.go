package sim

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// The Redis scenario's setting: SET lock:report <token> NX PX 5000.
const (
	RedisSeed = 7
	redisTTL  = 5000 // ms
)

// redisKey is one Redis key with an expiry.
type redisKey struct {
	value string
	until int64 // ms; the key is gone from this time on
}

func (k *redisKey) live(at int64) bool { return k.value != "" && at < k.until }

// setNX is SET key value NX PX ttl: it succeeds only if the key is absent.
func (k *redisKey) setNX(value string, at, ttl int64) bool {
	if k.live(at) {
		return false
	}
	k.value, k.until = value, at+ttl
	return true
}

// del is the plain DEL: it deletes whoever's lock is there.
func (k *redisKey) del(at int64) bool {
	ok := k.live(at)
	k.value = ""
	return ok
}

// compareAndDelete is the safe release: delete only if the value is still
// the caller's own token.
func (k *redisKey) compareAndDelete(value string, at int64) bool {
	if !k.live(at) || k.value != value {
		return false
	}
	k.value = ""
	return true
}

// RedisStep is one command of the Redis lock timeline.
type RedisStep struct {
	At      int64 // ms
	Client  string
	Command string // as sent to Redis
	OK      bool   // the command took effect
	Holder  string // who holds lock:report afterwards ("" for nobody)
}

// RedisResult is one run of the Redis lock scenario.
type RedisResult struct {
	Safe  bool
	Steps []RedisStep
	// TwoHolders is set when Redis gave the lock to a client while another
	// still held it rightfully: working, with its lease still running.
	TwoHolders bool
	// PastLease lists the clients that worked on after their lease ended.
	PastLease []string
	ops       []history.Op
}

// RedisLock runs the report-job story: A takes the lock for 5 s but works
// 7 s; B takes it at 5.5 s for a 4 s job; A releases at 7 s; C tries at
// 7.5 s for a 3 s job. With the unsafe release A's DEL removes B's lock
// and C gets it while B still works; with the safe release A's
// compare-and-delete does nothing. Tokens are random hex strings from the
// generator.
func RedisLock(safe bool, seed uint32) RedisResult {
	g := NewMulberry32(seed)
	tokens := map[string]string{}
	for _, c := range []string{"A", "B", "C"} {
		tokens[c] = fmt.Sprintf("%08x%08x", g.Uint32(), g.Uint32())
	}
	res := RedisResult{Safe: safe}
	key := &redisKey{}
	lockKey := history.StringValue("lock")
	holder := func(at int64) string {
		if !key.live(at) {
			return ""
		}
		for c, t := range tokens {
			if t == key.value {
				return c
			}
		}
		return ""
	}
	// held is, for each client that got the lock, until when it both works
	// under it and has a lease: the time it rightfully holds the lock.
	held := map[string]int64{}
	record := func(at int64, client, cmd, f string, ok bool) {
		res.Steps = append(res.Steps, RedisStep{At: at, Client: client, Command: cmd, OK: ok, Holder: holder(at + 1)})
		st := history.OK
		if !ok {
			st = history.Fail
		}
		res.ops = append(res.ops, op(client, f, lockKey, history.StringValue(tokens[client]), at, at+1, st))
	}
	acquire := func(client string, at, job int64) {
		ok := key.setNX(tokens[client], at, redisTTL)
		record(at, client, fmt.Sprintf("SET lock:report %s NX PX %d", tokens[client], redisTTL), "acquire", ok)
		if !ok {
			return
		}
		for other, until := range held {
			if other != client && until > at {
				res.TwoHolders = true
			}
		}
		held[client] = at + min(job, redisTTL)
		if job > redisTTL {
			res.PastLease = append(res.PastLease, client)
		}
	}
	release := func(client string, at int64) {
		if safe {
			ok := key.compareAndDelete(tokens[client], at)
			record(at, client, fmt.Sprintf("compare-and-delete lock:report %s", tokens[client]), "release", ok)
		} else {
			ok := key.del(at)
			record(at, client, "DEL lock:report", "release", ok)
		}
	}
	acquire("A", 0, 7000)
	acquire("B", 5500, 4000)
	release("A", 7000)
	acquire("C", 7500, 3000)
	release("B", 9500)
	if _, ok := held["C"]; ok {
		release("C", 10_500)
	}
	return res
}

// Table renders the timeline in seconds.
func (r RedisResult) Table() string {
	var rows [][]string
	for _, s := range r.Steps {
		result := "OK"
		if !s.OK {
			result = "nothing (nil or 0)"
		}
		holder := s.Holder
		if holder == "" {
			holder = "nobody"
		}
		rows = append(rows, []string{fmt.Sprintf("%g", float64(s.At)/1000), s.Client, "`" + s.Command + "`", result, holder})
	}
	var sb strings.Builder
	if r.Safe {
		sb.WriteString("Safe release (compare-and-delete):\n\n")
	} else {
		sb.WriteString("Unsafe release (DEL):\n\n")
	}
	sb.WriteString(mdTable([]string{"time (s)", "client", "command", "result", "holder after"}, rows))
	if r.TwoHolders {
		sb.WriteString("\nTwo holders: the lock was given away while its holder still worked under a valid lease.\n")
	} else {
		sb.WriteString("\nOne holder at a time while leases run.\n")
	}
	if len(r.PastLease) > 0 {
		fmt.Fprintf(&sb, "%s worked past the lease, which only fencing makes harmless.\n", strings.Join(r.PastLease, ", "))
	}
	return sb.String()
}

// History returns the run as a lock history on key "lock", times in ms:
// acquire and release carry the client's random token as value; a command
// that did nothing (SET NX finding the key, a delete finding no key or
// another's token) fails.
func (r RedisResult) History() (*history.History, error) {
	return build("redis lock", append([]history.Op(nil), r.ops...), metaTTL(RedisModel, history.Value{}, redisTTL))
}

// RedisModel is how the Redis lock history is checked: an owner-aware
// lease, with the 5 s TTL.
const RedisModel = "lease"

// shows says what the run's table shows and how its history is judged.
func (r RedisResult) shows() string {
	if r.Safe {
		return "A's compare-and-delete found B's token and did nothing, so B kept the lock and C waited: one holder at a time. " +
			"Checked with the lease model (TTL 5 s), the history passes; A still worked past its lease, which only fencing makes harmless."
	}
	return "A's plain DEL removed B's lock, so C took it at 7.5 s while B still worked: two holders. " +
		"Checked with the lease model (TTL 5 s), the history is not linearizable: a release by a client that no longer held the lock succeeded."
}

func redisLockScenario() Scenario {
	flags := []Flag{
		{Name: "release", Default: "unsafe", Usage: "unsafe (plain DEL) or safe (compare-and-delete of the own token)"},
		{Name: "seed", Default: fmt.Sprint(RedisSeed), Usage: "generator seed for the random tokens"},
	}
	return Scenario{
		Name:        "redis-lock",
		Description: "Redis SET NX PX with a job outliving its lease: unsafe DEL versus safe compare-and-delete release",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			rel, err := parseChoice("release", v["release"], "safe", "unsafe")
			if err != nil {
				return nil, err
			}
			seed, err := parseSeed(v["seed"])
			if err != nil {
				return nil, err
			}
			res := RedisLock(rel == "safe", seed)
			h, err := res.History()
			if err != nil {
				return nil, err
			}
			expect := map[bool]string{false: "false", true: "true"}[res.Safe]
			return &Output{Table: closing(res.Table(), res.shows(), "redis-lock", flags, v, expect), History: h, Model: RedisModel,
				Options: model.Options{TTL: redisTTL}, Expect: expect}, nil
		},
	}
}
