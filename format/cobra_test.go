package format

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cobraRecord is one record of Cobra's client log: a tag and its numbers.
type cobraRecord struct {
	tag  byte
	nums []int64
}

// cobraBytes writes records as Cobra's clients do: a byte, then
// big-endian 64-bit integers.
func cobraBytes(recs ...cobraRecord) []byte {
	var buf bytes.Buffer
	for _, r := range recs {
		buf.WriteByte(r.tag)
		for _, n := range r.nums {
			binary.Write(&buf, binary.BigEndian, n)
		}
	}
	return buf.Bytes()
}

func rec(tag byte, nums ...int64) cobraRecord { return cobraRecord{tag, nums} }

// TestCobraLogFolder reads a folder of two sessions' logs: writes take
// their unique write ids as values, a read names its writer's
// transaction and write id, and a read of Cobra's initial or null marker
// reads the initial state.
func TestCobraLogFolder(t *testing.T) {
	dir := t.TempDir()
	t0 := cobraBytes(rec('S', 1), rec('W', 101, 7, 5), rec('C', 1),
		rec('S', 2), rec('R', 1, 101, 7, 5), rec('R', cobraInit, cobraInit, 8, 0), rec('C', 2))
	t1 := cobraBytes(rec('S', 3), rec('R', cobraNull, cobraNull, 7, 0), rec('W', 102, 7, 6), rec('C', 3))
	for name, b := range map[string][]byte{"T0.log": t0, "T1.log": t1} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !LogFolder(dir) {
		t.Fatal("not taken for a folder of Cobra's logs")
	}
	res, err := ReadLogFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range res.History.Ops {
		got = append(got, o.Client+" "+o.Status.String()+" "+o.Value.String())
	}
	want := []string{"T0 ok [[w 7 101]]", "T1 ok [[r 7 nil] [w 7 102]]", "T0 ok [[r 7 101] [r 8 nil]]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Named, one log is a history of one session.
	h, err := Read("T0.log", bytes.NewReader(t0), Cobra)
	if err != nil || len(h.Ops) != 2 {
		t.Errorf("one log: %v, %v", h, err)
	}
	// A folder of other files is not Cobra's.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "jepsen.log"), []byte("2017-01-01 INFO"), 0o644)
	if LogFolder(other) {
		t.Error("a folder of text logs taken for Cobra's")
	}
}

// TestCobraErrors checks that a broken log is refused with the record at
// fault.
func TestCobraErrors(t *testing.T) {
	for _, tc := range []struct {
		log  []byte
		want string
	}{
		{cobraBytes(rec('S', 1), rec('C', 2)), "record 2 of session 0 commits transaction 2, which is not the one running"},
		{cobraBytes(rec('S', 1), rec('W', 1, 2, 3)), "session 0 ends inside transaction 1"},
		{cobraBytes(rec('W', 1, 2, 3)), "record 1 of session 0 (W) is outside a transaction"},
		{cobraBytes(rec('S', 1), rec('X')), "record 2 of session 0: unknown record X"},
		{cobraBytes(rec('S', 1), rec('S', 2)), "starts transaction 2 while 1 has not committed"},
		{cobraBytes(rec('S', 1))[:5], "record 1 (S) of session 0 is cut short"},
	} {
		_, err := Read("T0.log", bytes.NewReader(tc.log), Cobra)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%x: error %v, want %q", tc.log, err, tc.want)
		}
	}
}
