package main

import (
	"reflect"
	"testing"
)

// TestSettle checks how a transaction's outcome is read from its
// statements' SQLSTATEs: an error before COMMIT aborts it, a serialization
// failure or deadlock at COMMIT aborts it, any other error at COMMIT or a
// lost connection leaves it unknown, and a committed one's reads are filled in.
func TestSettle(t *testing.T) {
	ok0 := result{state: "00000"}
	tests := []struct {
		name  string
		res   []result // BEGIN, append 1 1, read 2, COMMIT
		want  outcome
		reads []int
	}{
		{"committed", []result{ok0, ok0, {rows: []string{"3,1,2"}, state: "00000"}, ok0}, ok, []int{3, 1, 2}},
		{"committed, no row", []result{ok0, ok0, ok0, ok0}, ok, nil},
		{"serialization failure in a statement", []result{ok0, {state: "40001"}, {state: "25P02"}, ok0}, failed, nil},
		{"unique violation in a statement", []result{ok0, {state: "23505"}, {state: "25P02"}, ok0}, failed, nil},
		{"serialization failure at commit", []result{ok0, ok0, ok0, {state: "40001"}}, failed, nil},
		{"deadlock at commit", []result{ok0, ok0, ok0, {state: "40P01"}}, failed, nil},
		{"other error at commit", []result{ok0, ok0, ok0, {state: "XX000"}}, unknown, nil},
		{"connection lost in a statement", []result{ok0, {state: "08006"}, {state: "08006"}, {state: "08006"}}, unknown, nil},
		{"server shut down", []result{ok0, ok0, {state: "57P01"}, {state: "08006"}}, unknown, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			txn := []mop{{append: true, key: 1, val: 1}, {key: 2}}
			got, err := settle(txn, tc.res)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("outcome %s, want %s", got, tc.want)
			}
			if got == ok && !reflect.DeepEqual(txn[1].vals, tc.reads) {
				t.Errorf("read %v, want %v", txn[1].vals, tc.reads)
			}
		})
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		rows    []string
		want    []int
		wantErr bool
	}{
		{nil, nil, false},
		{[]string{"7"}, []int{7}, false},
		{[]string{"1,12,3"}, []int{1, 12, 3}, false},
		{[]string{"1,x"}, nil, true},
		{[]string{""}, nil, true},
		{[]string{"1", "2"}, nil, true},
	}
	for _, tc := range tests {
		got, err := parseList(tc.rows)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseList(%q) = %v, %v; want %v, error %v", tc.rows, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestEDN(t *testing.T) {
	txn := []mop{{append: true, key: 3, val: 4}, {key: 1, vals: []int{2, 5}}, {key: 0}}
	if got, want := edn(txn, false), "[[:append 3 4] [:r 1 nil] [:r 0 nil]]"; got != want {
		t.Errorf("invocation %s, want %s", got, want)
	}
	if got, want := edn(txn, true), "[[:append 3 4] [:r 1 [2 5]] [:r 0 nil]]"; got != want {
		t.Errorf("completion %s, want %s", got, want)
	}
}

// TestGeneratorUnique checks that the generator never appends one value to
// a key twice, retires each key after its last append, and stops after
// the transactions asked for.
func TestGeneratorUnique(t *testing.T) {
	c := config{keys: 3, maxWrites: 5, maxMops: 4, reads: 0.3, txns: 500, seed: 7}
	g := newGenerator(c)
	seen := map[[2]int]bool{}
	perKey := map[int]int{}
	n := 0
	for {
		txn, more := g.next()
		if !more {
			break
		}
		n++
		if len(txn) < 1 || len(txn) > c.maxMops {
			t.Fatalf("transaction of %d micro-operations", len(txn))
		}
		for _, m := range txn {
			if !m.append {
				continue
			}
			if seen[[2]int{m.key, m.val}] {
				t.Fatalf("append of %d to key %d twice", m.val, m.key)
			}
			seen[[2]int{m.key, m.val}] = true
			perKey[m.key]++
		}
	}
	if n != c.txns {
		t.Errorf("%d transactions, want %d", n, c.txns)
	}
	for k, w := range perKey {
		if w > c.maxWrites {
			t.Errorf("key %d: %d appends, want at most %d", k, w, c.maxWrites)
		}
	}
	if len(perKey) <= c.keys {
		t.Errorf("%d keys written, want keys retired and replaced", len(perKey))
	}
}

func TestStatements(t *testing.T) {
	got := statements("REPEATABLE READ", []mop{{append: true, key: 1, val: 2}, {key: 1}})
	want := []string{
		"BEGIN ISOLATION LEVEL REPEATABLE READ;",
		"INSERT INTO lists AS t (k, v) VALUES (1, '2') ON CONFLICT (k) DO UPDATE SET v = t.v || ',' || excluded.v;",
		"SELECT v FROM lists WHERE k = 1;",
		"COMMIT;",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("statements:\n%q\nwant\n%q", got, want)
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args    []string
		level   string
		wantErr bool
	}{
		{nil, "SERIALIZABLE", false},
		{[]string{"-isolation", "repeatable-read"}, "REPEATABLE READ", false},
		{[]string{"-isolation", "read-committed", "-kill-interval", "50ms"}, "READ COMMITTED", false},
		{[]string{"-isolation", "snapshot"}, "", true},
		{[]string{"-clients", "0"}, "", true},
		{[]string{"-kill-interval", "-1s"}, "", true},
		{[]string{"-read-ratio", "1.5"}, "", true},
	}
	for _, tc := range tests {
		c, err := parseFlags(tc.args)
		if (err != nil) != tc.wantErr {
			t.Errorf("%q: error %v, want error %v", tc.args, err, tc.wantErr)
			continue
		}
		if err == nil && c.level != tc.level {
			t.Errorf("%q: level %q, want %q", tc.args, c.level, tc.level)
		}
	}
}
